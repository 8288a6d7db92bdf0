// Reads Prometheus text exposition (what /metrics serves) into the names a
// query may use: every family with its type and label names, and every
// sample name (a histogram family `x` exposes x_bucket, x_sum and x_count,
// never `x` itself).

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s/;
const LABEL_NAME = /([a-zA-Z_][a-zA-Z0-9_]*)="/g;
const HISTOGRAM_SUFFIXES = ["_bucket", "_sum", "_count"];

// Returns { families: Map<name, {type, labels: Set}>, samples: Map<sampleName, family> }.
export function parseExposition(text) {
  const families = new Map();
  const samples = new Map();
  for (const line of text.split("\n")) {
    const type = line.match(/^# TYPE (\S+) (\S+)/);
    if (type) {
      const family = { name: type[1], type: type[2], labels: new Set() };
      families.set(family.name, family);
      const names =
        family.type === "histogram" || family.type === "summary"
          ? HISTOGRAM_SUFFIXES.map((suffix) => family.name + suffix)
          : [family.name];
      if (family.type === "summary") names.push(family.name);
      for (const name of names) samples.set(name, family);
      continue;
    }
    if (line.startsWith("#") || line.trim() === "") continue;
    const sample = line.match(SAMPLE);
    if (!sample) continue;
    const family = samples.get(sample[1]);
    if (family === undefined) continue;
    for (const [, label] of (sample[3] ?? "").matchAll(LABEL_NAME)) {
      if (label !== "le" && label !== "quantile") family.labels.add(label);
    }
  }
  return { families, samples };
}

// Merges the parsed expositions of several services into one.
export function mergeExpositions(parsed) {
  const merged = { families: new Map(), samples: new Map() };
  for (const one of parsed) {
    for (const [name, family] of one.families) merged.families.set(name, family);
    for (const [name, family] of one.samples) merged.samples.set(name, family);
  }
  return merged;
}
