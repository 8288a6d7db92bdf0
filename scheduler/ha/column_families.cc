#include "scheduler/ha/column_families.h"

#include "absl/strings/str_cat.h"
#include "rocksdb/db.h"
#include "scheduler/store/store.h"

namespace taskboard::ha {

std::vector<std::string> StoreColumnFamilyNames() {
  std::vector<std::string> names = {rocksdb::kDefaultColumnFamilyName};
  for (int i = 0; i < store::kColumnCount; ++i) {
    names.emplace_back(store::ColumnName(static_cast<store::Column>(i)));
  }
  return names;
}

std::vector<std::string> DescribeColumnFamilies(
    const std::vector<rocksdb::ColumnFamilyHandle*>& handles) {
  std::vector<std::string> described;
  for (rocksdb::ColumnFamilyHandle* handle : handles) {
    described.push_back(absl::StrCat(handle->GetName(), ":", handle->GetID()));
  }
  return described;
}

}  // namespace taskboard::ha
