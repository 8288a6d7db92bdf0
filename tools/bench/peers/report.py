"""Prints the peers benchmark's Markdown table from the drivers' JSON lines.

usage: report.py RESULTS.jsonl

Every figure is the median over the repetitions of one row (each column on its own), except the
latency, which is the median of the single-task samples. The ratio column is the reference
row's tasks/s divided by the row's (the reference is Taskboard, board, durability `wal`).
"""

import json
import statistics
import sys


def fmt_rate(x):
    return f"{x:,.0f}"


def fmt_ms(x):
    return f"{x:.1f} ms" if x < 100 else f"{x:,.0f} ms"


def fmt_cpu(x):
    return f"{x:.2f}"


def main():
    rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
    if not rows:
        raise SystemExit("report.py: no results")
    reference = next((r for r in rows if r.get("reference")), None)

    def rate(row):
        return statistics.median(rep["tasks_per_s"] for rep in row["reps"])

    def cpu(row, role):
        values = [rep["cpu"][role] for rep in row["reps"] if role in rep["cpu"]]
        return statistics.median(values) if values else None

    def cpu_us_per_task(row):
        return statistics.median(sum(rep["cpu"].values()) / row["n"] * 1e6 for rep in row["reps"])

    ref_rate = rate(reference) if reference else None
    print("| system | configuration | N | tasks/s (median of "
          f"{len(rows[0]['reps'])}) | single-task latency | CPU s scheduler / broker | "
          "CPU s worker | CPU s client | CPU µs/task (all) | Taskboard `wal` ÷ row |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        ratio = f"{ref_rate / rate(row):.1f}x" if ref_rate else "-"
        if row is reference:
            ratio = "1.0x (reference)"
        print(f"| {row['system']} | {row['config']} | {row['n']:,} | {fmt_rate(rate(row))} | "
              f"{fmt_ms(row['latency_ms_median'])} | {fmt_cpu(cpu(row, 'scheduler'))} | "
              f"{fmt_cpu(cpu(row, 'worker'))} | {fmt_cpu(cpu(row, 'client'))} | "
              f"{cpu_us_per_task(row):,.0f} | {ratio} |")

    # The spread behind each median, so a noisy row is visible, and how busy the rest of the
    # machine was (CPU not used by the measured processes, in cores, worst repetition).
    print()
    print("Repetitions (tasks/s):")
    for row in rows:
        rates = ", ".join(fmt_rate(rep["tasks_per_s"]) for rep in row["reps"])
        server = [rep["server_seconds"] for rep in row["reps"] if "server_seconds" in rep]
        extra = ""
        if server:
            extra = ("; scheduler's own created->finished: "
                     + ", ".join(fmt_rate(row["n"] / s) for s in server))
        others = [rep.get("other_cpu", 0) / rep["seconds"] for rep in row["reps"]]
        extra += f"; rest of the machine: {max(others):.2f} cores at most"
        if "cli_call_ms" in row:
            extra += f"; `taskboard` CLI start + one RPC: {row['cli_call_ms']:.1f} ms"
        print(f"- {row['system']}, {row['config']}: {rates}{extra}")


if __name__ == "__main__":
    main()
