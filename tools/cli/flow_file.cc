#include "tools/cli/flow_file.h"

#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "scheduler/flow/dsl_text.h"
#include "scheduler/flow/flow_errors.h"
#include "scheduler/flow/flow_loader.h"
#include "tools/cli/flow_error_report.h"

namespace taskboard::cli {
bool ReadInput(const std::string& path, std::string* text) {
  if (path == "-") {
    text->assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    return true;
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) return false;
  std::ostringstream buffer;
  buffer << file.rdbuf();
  *text = buffer.str();
  return true;
}

namespace {

v1::DslFormat ProtoFormat(flow::DslFormat format) {
  switch (format) {
    case flow::DslFormat::kJson:
      return v1::DSL_FORMAT_JSON;
    case flow::DslFormat::kYaml:
      return v1::DSL_FORMAT_YAML;
    case flow::DslFormat::kAuto:
      break;
  }
  return v1::DSL_FORMAT_UNSPECIFIED;
}

}  // namespace

v1::FlowSource FlowFile::Source() const {
  v1::FlowSource source;
  source.set_text(text);
  source.set_format(format);
  return source;
}

int LoadFlowFile(absl::string_view command, const std::string& path, FlowFile* file,
                 std::ostream& err) {
  if (!ReadInput(path, &file->text)) {
    err << command << ": cannot read '" << path
        << "': check the path and that the file is readable\n";
    return 2;
  }
  const flow::DslFormat format = flow::DslFormatFromPath(path);
  file->format = ProtoFormat(format);
  absl::StatusOr<v1::FlowSpec> spec = flow::LoadFlowText(file->text, format);
  if (!spec.ok()) {
    PrintFlowErrors(path, "invalid flow", flow::FlowErrorsFromStatus(spec.status()), err);
    return 1;
  }
  file->spec = *std::move(spec);
  return 0;
}

}  // namespace taskboard::cli
