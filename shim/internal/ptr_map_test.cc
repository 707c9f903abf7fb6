#include "shim/internal/ptr_map.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace verbsemu::shim::internal {
namespace {

TEST(PtrMapTest, InsertFindErase) {
  PtrMap<int> map(4);
  int a = 1, b = 2;
  EXPECT_EQ(map.Find(&a), nullptr);
  ASSERT_TRUE(map.Insert(&a, &a));
  ASSERT_TRUE(map.Insert(&b, &b));
  EXPECT_EQ(map.Find(&a), &a);
  EXPECT_EQ(map.Find(&b), &b);
  map.Erase(&a);
  EXPECT_EQ(map.Find(&a), nullptr);
  EXPECT_EQ(map.Find(&b), &b);
  EXPECT_EQ(map.size(), 1u);
}

TEST(PtrMapTest, FullTableRejectsAndStillFinds) {
  PtrMap<int> map(2);
  std::vector<int> v(5);
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(map.Insert(&v[i], &v[i]));
  EXPECT_FALSE(map.Insert(&v[4], &v[4]));
  for (int i = 0; i < 4; ++i) EXPECT_EQ(map.Find(&v[i]), &v[i]);
  EXPECT_EQ(map.Find(&v[4]), nullptr);
}

TEST(PtrMapTest, TombstonesAreReused) {
  PtrMap<int> map(2);
  std::vector<int> v(8);
  for (int round = 0; round < 4; ++round) {
    for (int i = 0; i < 4; ++i) ASSERT_TRUE(map.Insert(&v[i], &v[i]));
    for (int i = 0; i < 4; ++i) map.Erase(&v[i]);
  }
  EXPECT_EQ(map.size(), 0u);
  EXPECT_EQ(map.Find(&v[0]), nullptr);
}

TEST(PtrMapTest, ReadersSeeStableEntriesWhileWriterChurns) {
  PtrMap<int> map(10);
  std::vector<int> stable(64), churn(64);
  for (auto& x : stable) ASSERT_TRUE(map.Insert(&x, &x));
  std::atomic<bool> stop{false};
  std::atomic<int> errors{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 3; ++t) {
    readers.emplace_back([&] {
      while (!stop.load()) {
        for (auto& x : stable) {
          if (map.Find(&x) != &x) errors.fetch_add(1);
        }
      }
    });
  }
  for (int round = 0; round < 2000; ++round) {
    for (auto& x : churn) map.Insert(&x, &x);
    for (auto& x : churn) map.Erase(&x);
  }
  stop = true;
  for (auto& t : readers) t.join();
  EXPECT_EQ(errors.load(), 0);
}

TEST(PtrMapTest, ChurnDoesNotAccumulateTombstones) {
  PtrMap<int> map(8);  // 256 slots
  std::vector<int> stable(32), churn(4096);
  for (auto& x : stable) ASSERT_TRUE(map.Insert(&x, &x));
  for (int round = 0; round < 20; ++round) {
    for (size_t i = 0; i < churn.size(); i += 64) {
      for (size_t j = i; j < i + 64; ++j)
        ASSERT_TRUE(map.Insert(&churn[j], &churn[j]));
      for (size_t j = i; j < i + 64; ++j) map.Erase(&churn[j]);
    }
  }
  for (auto& x : stable) EXPECT_EQ(map.Find(&x), &x);
  EXPECT_EQ(map.size(), stable.size());
  EXPECT_LE(map.tombstones(), map.capacity() / 4);
  for (auto& x : stable) map.Erase(&x);
  EXPECT_EQ(map.size(), 0u);
  EXPECT_EQ(map.tombstones(), 0u);
}

}  // namespace
}  // namespace verbsemu::shim::internal
