#ifndef TASKBOARD_SCHEDULER_HA_COLUMN_FAMILIES_H_
#define TASKBOARD_SCHEDULER_HA_COLUMN_FAMILIES_H_

// The store's RocksDB column families as replication sees them. A leader's
// batch names families by id, so a follower applies it only to a database
// whose families have the same names and ids; both sides describe theirs
// with DescribeColumnFamilies and compare before any batch is sent.

#include <string>
#include <vector>

namespace rocksdb {
class ColumnFamilyHandle;
}  // namespace rocksdb

namespace taskboard::ha {

// "default" and then every store::Column's name in Column order: the order
// RocksDbStore opens (and on a new database creates) them in.
std::vector<std::string> StoreColumnFamilyNames();

// "name:id" of each handle, in the given order.
std::vector<std::string> DescribeColumnFamilies(
    const std::vector<rocksdb::ColumnFamilyHandle*>& handles);

}  // namespace taskboard::ha

#endif  // TASKBOARD_SCHEDULER_HA_COLUMN_FAMILIES_H_
