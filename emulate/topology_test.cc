#include "emulate/topology.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace verbsemu::emulate {
namespace {

constexpr char kFatTree[] = R"(# verbsemu topology: two leaves under one spine
class leaf   latency=1us
class spine  latency=3us  bandwidth=50%
# FROM            TO               CLASS
route 10.0.1.0/24  10.0.1.0/24     leaf
route 10.0.2.0/24  10.0.2.0/24     leaf
route *            *               spine
)";

std::array<uint8_t, 16> Gid(const std::string& ipv6) {
  std::array<uint8_t, 16> gid{};
  EXPECT_EQ(inet_pton(AF_INET6, ipv6.c_str(), gid.data()), 1) << ipv6;
  return gid;
}

// A RoCE v2 port: its GID holds the IPv4 address.
PortAddress Roce(const std::string& ipv4) {
  return PortAddress{Gid("::ffff:" + ipv4), std::nullopt};
}
PortAddress AtGid(const std::string& ipv6) {
  return PortAddress{Gid(ipv6), std::nullopt};
}
PortAddress AtLid(uint16_t lid) { return PortAddress{std::nullopt, lid}; }

Topology MustParse(const std::string& text) {
  std::string why;
  auto topology = Topology::Parse(text, &why);
  EXPECT_TRUE(topology.has_value()) << why << "\n" << text;
  return topology ? *topology : Topology();
}

AddressPattern MustPattern(const std::string& text) {
  std::string why;
  auto pattern = AddressPattern::Parse(text, &why);
  EXPECT_TRUE(pattern.has_value()) << text << ": " << why;
  return pattern.value_or(AddressPattern());
}

TEST(TopologyTest, FatTreeLeafAndSpine) {
  const Topology topology = MustParse(kFatTree);
  ASSERT_EQ(topology.classes().size(), 2u);
  EXPECT_EQ(topology.routes(), 3u);
  const LinkClass& leaf = topology.classes()[0];
  const LinkClass& spine = topology.classes()[1];
  EXPECT_EQ(leaf.name, "leaf");
  EXPECT_EQ(leaf.latency, "1us");
  EXPECT_FALSE(leaf.bandwidth.enabled());
  EXPECT_EQ(leaf.line, 2);
  EXPECT_EQ(spine.name, "spine");
  EXPECT_EQ(spine.latency, "3us");
  EXPECT_EQ(spine.bandwidth.kind, BandwidthTarget::Kind::kFraction);
  EXPECT_DOUBLE_EQ(spine.bandwidth.fraction, 0.5);
  EXPECT_EQ(spine.line, 3);

  EXPECT_EQ(topology.Match(Roce("10.0.1.1"), Roce("10.0.1.2")), 0);
  EXPECT_EQ(topology.Match(Roce("10.0.2.1"), Roce("10.0.2.2")), 0);
  EXPECT_EQ(topology.Match(Roce("10.0.1.1"), Roce("10.0.2.1")), 1);
  EXPECT_EQ(topology.Match(Roce("10.0.2.2"), Roce("10.0.1.2")), 1);
  // A node outside both leaves still goes over the spine.
  EXPECT_EQ(topology.Match(Roce("10.0.1.1"), Roce("192.168.0.1")), 1);
}

TEST(TopologyTest, Ipv4MatchesOnlyIpv4MappedGids) {
  const AddressPattern host = MustPattern("10.0.1.7");
  EXPECT_TRUE(host.Matches(Roce("10.0.1.7")));
  EXPECT_FALSE(host.Matches(Roce("10.0.1.8")));
  // The same four bytes under another prefix are not that IPv4 address.
  EXPECT_FALSE(host.Matches(AtGid("fe80::a00:107")));
  EXPECT_FALSE(host.Matches(AtGid("::a00:107")));
  EXPECT_FALSE(host.Matches(PortAddress{}));
  EXPECT_FALSE(host.Matches(AtLid(7)));

  const AddressPattern subnet = MustPattern("10.0.1.0/24");
  EXPECT_TRUE(subnet.Matches(Roce("10.0.1.0")));
  EXPECT_TRUE(subnet.Matches(Roce("10.0.1.255")));
  EXPECT_FALSE(subnet.Matches(Roce("10.0.2.1")));

  const AddressPattern any_ipv4 = MustPattern("0.0.0.0/0");
  EXPECT_TRUE(any_ipv4.Matches(Roce("192.168.7.9")));
  EXPECT_FALSE(any_ipv4.Matches(AtGid("fe80::1")));
  // The mapped form written as IPv6 is the same pattern.
  EXPECT_TRUE(MustPattern("::ffff:10.0.1.0/120").Matches(Roce("10.0.1.99")));
}

TEST(TopologyTest, Ipv6Prefixes) {
  const AddressPattern all = MustPattern("::/0");
  EXPECT_TRUE(all.Matches(AtGid("fe80::1")));
  EXPECT_TRUE(all.Matches(Roce("10.0.0.1")));
  EXPECT_FALSE(all.Matches(AtLid(1)));

  const AddressPattern link_local = MustPattern("fe80::/64");
  EXPECT_TRUE(link_local.Matches(AtGid("fe80::2:c903:0:1234")));
  EXPECT_FALSE(link_local.Matches(AtGid("fe80:0:0:1::1")));
  EXPECT_FALSE(link_local.Matches(AtGid("fe81::1")));

  const AddressPattern one = MustPattern("fe80::a00:27ff:fe4e:1/128");
  EXPECT_TRUE(one.Matches(AtGid("fe80::a00:27ff:fe4e:1")));
  EXPECT_FALSE(one.Matches(AtGid("fe80::a00:27ff:fe4e:2")));

  // /57: seven whole bytes and the top bit of the eighth.
  const AddressPattern odd = MustPattern("2001:db8:0:80::/57");
  EXPECT_TRUE(odd.Matches(AtGid("2001:db8:0:80::1")));
  EXPECT_TRUE(odd.Matches(AtGid("2001:db8:0:ff:ffff::")));
  EXPECT_FALSE(odd.Matches(AtGid("2001:db8:0:7f::1")));
  EXPECT_FALSE(odd.Matches(AtGid("2001:db8:1:80::1")));
}

TEST(TopologyTest, GidAsRdmaCorePrintsIt) {
  const AddressPattern gid =
      MustPattern("fe80:0000:0000:0000:0002:c903:0000:1234");
  EXPECT_TRUE(gid.Matches(AtGid("fe80::2:c903:0:1234")));
  EXPECT_FALSE(gid.Matches(AtGid("fe80::2:c903:0:1235")));
}

TEST(TopologyTest, LidsAndRanges) {
  const AddressPattern seven = MustPattern("lid:7");
  EXPECT_TRUE(seven.Matches(AtLid(7)));
  EXPECT_FALSE(seven.Matches(AtLid(8)));
  EXPECT_FALSE(seven.Matches(PortAddress{}));
  EXPECT_FALSE(seven.Matches(Roce("10.0.0.7")));

  const AddressPattern range = MustPattern("lid:1-16");
  EXPECT_TRUE(range.Matches(AtLid(1)));
  EXPECT_TRUE(range.Matches(AtLid(16)));
  EXPECT_FALSE(range.Matches(AtLid(17)));

  const AddressPattern hex = MustPattern("lid:0x10-0x1f");
  EXPECT_TRUE(hex.Matches(AtLid(16)));
  EXPECT_TRUE(hex.Matches(AtLid(31)));
  EXPECT_FALSE(hex.Matches(AtLid(32)));

  const AddressPattern all = MustPattern("lid:1-49151");
  EXPECT_TRUE(all.Matches(AtLid(0xbfff)));
  EXPECT_FALSE(all.Matches(AtLid(0xc000)));  // multicast

  // Both parts of an IB address: a LID route ignores the GID.
  const Topology topology =
      MustParse("class near latency=1us\nroute lid:1-8 lid:1-8 near\n");
  const PortAddress both{Gid("fe80::1"), 3};
  EXPECT_EQ(topology.Match(both, AtLid(8)), 0);
  EXPECT_EQ(topology.Match(both, AtLid(9)), -1);
}

TEST(TopologyTest, FirstMatchWins) {
  const Topology topology = MustParse(
      "class special latency=10us\n"
      "class leaf latency=1us\n"
      "route 10.0.1.7 10.0.1.8 special\n"
      "route 10.0.1.0/24 10.0.1.0/24 leaf\n"
      "route 10.0.1.0/24 10.0.1.8 special\n");
  EXPECT_EQ(topology.Match(Roce("10.0.1.7"), Roce("10.0.1.8")), 0);
  EXPECT_EQ(topology.Match(Roce("10.0.1.8"), Roce("10.0.1.7")), 1);
  EXPECT_EQ(topology.Match(Roce("10.0.1.6"), Roce("10.0.1.8")), 1);
}

TEST(TopologyTest, StarMatchesEvenEmptyAddresses) {
  const Topology topology = MustParse("class any latency=2us\nroute * * any");
  EXPECT_EQ(topology.Match(PortAddress{}, PortAddress{}), 0);
  EXPECT_EQ(topology.Match(AtLid(4), Roce("10.0.0.1")), 0);
  EXPECT_TRUE(AddressPattern().Matches(PortAddress{}));
}

TEST(TopologyTest, UnmatchedPeerWithoutCatchAll) {
  const Topology topology =
      MustParse("class leaf latency=1us\nroute 10.0.1.0/24 10.0.1.0/24 leaf\n");
  EXPECT_EQ(topology.Match(Roce("10.0.1.1"), Roce("10.0.2.1")), -1);
  EXPECT_EQ(topology.Match(Roce("10.0.2.1"), Roce("10.0.1.1")), -1);
  EXPECT_EQ(topology.Match(PortAddress{}, PortAddress{}), -1);
  EXPECT_EQ(topology.Match(AtLid(1), AtLid(2)), -1);
}

TEST(TopologyTest, ClassesMayFollowTheirRoutes) {
  const Topology topology = MustParse(
      "route * * wan\nclass wan latency=normal(3us,0.3us) "
      "bandwidth=25Gbit/s\n");
  ASSERT_EQ(topology.classes().size(), 1u);
  EXPECT_EQ(topology.classes()[0].latency, "normal(3us,0.3us)");
  EXPECT_EQ(topology.classes()[0].bandwidth.kind,
            BandwidthTarget::Kind::kAbsolute);
  EXPECT_DOUBLE_EQ(topology.classes()[0].bandwidth.bits_per_s, 25e9);
  EXPECT_EQ(topology.classes()[0].line, 2);
  EXPECT_EQ(topology.Match(PortAddress{}, PortAddress{}), 0);
}

TEST(TopologyTest, CommentsBlankLinesTabsAndCrlf) {
  const Topology topology = MustParse(
      "\n   \n# a comment\n\t# an indented one\n"
      "class\tleaf\t\tlatency=1us   # trailing comment\r\n"
      "\r\n"
      "  route\t10.0.1.0/24 \t 10.0.1.0/24\tleaf#no space before it\r\n");
  ASSERT_EQ(topology.classes().size(), 1u);
  EXPECT_EQ(topology.classes()[0].latency, "1us");
  EXPECT_EQ(topology.classes()[0].line, 5);
  EXPECT_EQ(topology.routes(), 1u);
  EXPECT_EQ(topology.Match(Roce("10.0.1.1"), Roce("10.0.1.2")), 0);
}

struct BadFile {
  std::string text;
  int line;
  std::string says;
};

std::string BandwidthReason(const std::string& text) {
  std::string reason;
  EXPECT_FALSE(ParseBandwidth(text, &reason).has_value());
  return reason;
}

// Every refusal: the file, the line it names, and a part of what it says.
std::vector<BadFile> BadFiles() {
  const std::string ok = "class leaf latency=1us\n";
  return {
      {"", 1, "the file is empty"},
      {"# nothing\n\n", 2, "the file is empty"},
      {ok, 1, "no routes"},
      {ok + "link * * leaf\n", 2, "unknown keyword 'link'"},
      {ok + "route * * spine\n", 2, "unknown class 'spine' (declared: leaf)"},
      {"route * * leaf\n", 1, "none is declared"},
      {ok + "route * * le@f\n", 2, "CLASS 'le@f' is not a class name"},
      {ok + "class leaf latency=2us\n", 2, "already declared at line 1"},
      {ok + "route * *\n", 2, "needs three fields, FROM TO CLASS, and has 2"},
      {ok + "route * * leaf spine\n", 2, "'spine' is one too many"},
      {"class\n", 1, "needs a NAME"},
      {"class latency=1us\n", 1, "needs a NAME"},
      {"class leaf\n", 1, "'leaf' sets nothing"},
      {"class le@f latency=1us\n", 1, "class name 'le@f' is not accepted"},
      {"class leaf speed=1us\n", 1, "'speed=1us' is not a class setting"},
      {"class leaf latency=1us latency=2us\n", 1, "latency is given twice"},
      {"class leaf bandwidth=50% bandwidth=40%\n", 1, "given twice"},
      {"class leaf latency=\n", 1, "latency has no value"},
      {"class leaf bandwidth=3GB/s\n", 1,
       "bandwidth '3GB/s' is not accepted: " + BandwidthReason("3GB/s")},
      {"class leaf bandwidth=0%\n", 1, BandwidthReason("0%")},
      {ok + "route foo * leaf\n", 2, "FROM 'foo' is not an address pattern"},
      {ok + "route * 10.0.1 leaf\n", 2, "TO '10.0.1' is not an address"},
      {ok + "route 10.0.1.0/33 * leaf\n", 2,
       "FROM '10.0.1.0/33': prefix length /33 is out of range: an IPv4 "
       "prefix is /0 to /32"},
      {ok + "route fe80::/129 * leaf\n", 2, "IPv6 prefix is /0 to /128"},
      {ok + "route 10.0.1.0/ * leaf\n", 2,
       "'10.0.1.0/': prefix length / is not a number"},
      {ok + "route 10.0.1.0/-1 * leaf\n", 2, "is not a number"},
      {ok + "route 10.0.1.0/\x01\x7f * leaf\n", 2,
       "prefix length /\\x01\\x7f is not a number"},
      {ok + "route 10.0.1.7/24 * leaf\n", 2,
       "'10.0.1.7/24' sets bits beyond its /24 prefix: write 10.0.1.0/24"},
      {ok + "route 2001:db8:0:81::/57 * leaf\n", 2, "write 2001:db8:0:80::/57"},
      {ok + "route lid:0 * leaf\n", 2, "FROM 'lid:0': LID 0 is out of range"},
      {ok + "route lid:49152 * leaf\n", 2, "1 to 49151 (0xbfff)"},
      {ok + "route lid:99999999999 * leaf\n", 2, "is out of range"},
      {ok + "route lid:9-3 * leaf\n", 2,
       "empty range: write the lower LID "
       "first (lid:3-9)"},
      {ok + "route lid:x * leaf\n", 2, "'lid:x' is not a LID or LID range"},
      {ok + "route lid:1-2-3 * leaf\n", 2, "is not a LID or LID range"},
      {ok + std::string("route 10.0.1.1\0junk * leaf\n", 27), 2,
       "'10.0.1.1\\x00junk' is not an address pattern"},
      {ok + "route " + std::string(100, 'a') + ". * leaf\n", 2,
       "'" + std::string(80, 'a') + "...' is not an address pattern"},
  };
}

TEST(TopologyTest, ErrorsNameTheLineAndTheFix) {
  for (const BadFile& file : BadFiles()) {
    std::string why;
    EXPECT_FALSE(Topology::Parse(file.text, &why).has_value()) << file.text;
    const std::string line = "line " + std::to_string(file.line) + ": ";
    EXPECT_EQ(why.rfind(line, 0), 0u) << why << "\n" << file.text;
    EXPECT_NE(why.find(file.says), std::string::npos)
        << why << "\n(wanted: " << file.says << ")\n"
        << file.text;
    EXPECT_EQ(why.find('\n'), std::string::npos) << why;
  }
  EXPECT_FALSE(Topology::Parse("bogus").has_value());  // why is optional
}

TEST(LoadTopologyTest, ReadsAFile) {
  const std::string path = testing::TempDir() + "/fat_tree.topology";
  std::ofstream(path) << kFatTree;
  std::string why;
  const auto topology = LoadTopology(path, &why);
  ASSERT_TRUE(topology.has_value()) << why;
  EXPECT_EQ(topology->routes(), 3u);
}

TEST(LoadTopologyTest, ParseErrorsNameThePath) {
  const std::string path = testing::TempDir() + "/bad.topology";
  std::ofstream(path) << "class leaf latency=1us\nroute * * spine\n";
  std::string why;
  EXPECT_FALSE(LoadTopology(path, &why).has_value());
  EXPECT_EQ(why.rfind(path + ": line 2: unknown class 'spine'", 0), 0u) << why;
}

TEST(LoadTopologyTest, MissingFileNamesThePathAndTheReason) {
  const std::string path = testing::TempDir() + "/no/such/topology";
  std::string why;
  EXPECT_FALSE(LoadTopology(path, &why).has_value());
  EXPECT_NE(why.find(path), std::string::npos) << why;
  EXPECT_NE(why.find("No such file or directory"), std::string::npos) << why;

  // Neither a directory nor a device (nor a FIFO, which would block) is
  // read.
  EXPECT_FALSE(LoadTopology(testing::TempDir(), &why).has_value());
  EXPECT_NE(why.find("not a regular file"), std::string::npos) << why;
  EXPECT_FALSE(LoadTopology("/dev/zero", &why).has_value());
  EXPECT_NE(why.find("/dev/zero: not a regular file"), std::string::npos)
      << why;

  const std::string big = testing::TempDir() + "/big-topology";
  std::ofstream(big).close();
  std::filesystem::resize_file(big, (16u << 20) + 1);  // sparse
  EXPECT_FALSE(LoadTopology(big, &why).has_value());
  EXPECT_NE(why.find(big + ": it is larger than 16 MiB"), std::string::npos)
      << why;
  std::filesystem::remove(big);
}

TEST(FormatGidTest, RoundTrips) {
  EXPECT_EQ(FormatGid(Gid("::ffff:10.0.1.7")), "::ffff:10.0.1.7");
  EXPECT_EQ(FormatGid(Gid("fe80:0000:0000:0000:0002:c903:0000:1234")),
            "fe80::2:c903:0:1234");
  for (const char* text :
       {"::ffff:10.0.1.7", "fe80::2:c903:0:1234", "::", "2001:db8:0:80::1",
        "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"}) {
    const auto gid = Gid(text);
    EXPECT_EQ(Gid(FormatGid(gid)), gid) << text;
    EXPECT_TRUE(MustPattern(FormatGid(gid)).Matches(PortAddress{gid, {}}));
  }
}

}  // namespace
}  // namespace verbsemu::emulate
