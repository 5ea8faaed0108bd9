// A range's destination: pieces that do not ascend from 0 are refused, and bytes that arrive
// in any cut land in their pieces, the gaps dropped.
#include "io/remote/fetch_destination.h"

#include <gtest/gtest.h>

#include <numeric>
#include <stdexcept>
#include <vector>

namespace feedrate::io {
namespace {

TEST(FetchDestination, RefusesPiecesThatDoNotAscendFromZero) {
  std::vector<std::byte> a(4), b(4);
  EXPECT_THROW(FetchDestination({{2, a}}), std::invalid_argument);
  EXPECT_THROW(FetchDestination({{0, a}, {2, b}}), std::invalid_argument);  // overlaps
  EXPECT_EQ(FetchDestination({{0, a}, {4, b}}).size(), 8u);
  EXPECT_EQ(FetchDestination({{0, a}, {10, b}}).size(), 14u);
}

TEST(FetchDestination, BytesArrivingInAnyCutLandInTheirPieces) {
  std::vector<std::byte> range(20);
  for (std::size_t i = 0; i < range.size(); ++i) range[i] = static_cast<std::byte>(i + 1);
  for (std::size_t cut = 1; cut < range.size(); ++cut) {
    std::vector<std::byte> a(3), b(5), c(4);
    const FetchDestination destination({{0, a}, {6, b}, {16, c}});
    ASSERT_EQ(destination.size(), range.size());
    destination.deliver(0, std::span(range).first(cut));
    destination.deliver(cut, std::span(range).subspan(cut));
    EXPECT_EQ(a, std::vector<std::byte>(range.begin(), range.begin() + 3)) << "cut " << cut;
    EXPECT_EQ(b, std::vector<std::byte>(range.begin() + 6, range.begin() + 11)) << "cut " << cut;
    EXPECT_EQ(c, std::vector<std::byte>(range.begin() + 16, range.end())) << "cut " << cut;
  }
}

}  // namespace
}  // namespace feedrate::io
