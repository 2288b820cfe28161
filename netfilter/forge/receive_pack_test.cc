#include "netfilter/forge/receive_pack.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "netfilter/forge/pkt_line.h"
#include "netfilter/forge/testdata/captured_git.h"

namespace corral::netfilter::forge {
namespace {

using Progress = ReceivePackCommands::Progress;
using namespace testdata;

template <std::size_t N>
std::string_view Bytes(const char (&literal)[N]) {
  return {literal, N - 1};
}

const std::string kZero(40, '0');
const std::string kA(40, 'a'), kB(40, 'b'), kC(40, 'c');
constexpr std::string_view kPackHead("PACK\0\0\0\2\0\0\0\3", 12);
const std::set<std::string> kGitCaps = {"report-status-v2", "side-band-64k", "quiet",
                                        "object-format=sha1", "agent=git/2.39.5"};

std::string Command(const std::string& old_oid, const std::string& new_oid, std::string_view ref,
                    std::string_view caps = "") {
  std::string line = old_oid + " " + new_oid + " " + std::string(ref);
  if (!caps.empty()) line += std::string(1, '\0') + std::string(caps);
  return PktLine(line);
}

ReceivePackCommands Fed(std::string_view body) {
  ReceivePackCommands commands;
  (void)commands.Feed(body);
  return commands;
}

std::string ErrorOf(std::string_view body) {
  ReceivePackCommands commands = Fed(body);
  EXPECT_EQ(commands.progress(), Progress::kError) << body;
  return commands.error().message;
}

// ---- Real pushes ----

TEST(ReceivePackCommandsTest, Create) {
  std::string_view body = Bytes(kCreateRequest);
  ReceivePackCommands commands = Fed(body);
  ASSERT_EQ(commands.progress(), Progress::kDone) << commands.error().message;
  ASSERT_EQ(commands.updates().size(), 1u);
  const RefUpdate& update = commands.updates()[0];
  EXPECT_EQ(update.old_oid, kZero);
  EXPECT_EQ(update.new_oid, "f591ed8616f298190e7a74fd79ad096726da38b5");
  EXPECT_EQ(update.ref, "refs/heads/main");
  EXPECT_TRUE(update.Creates());
  EXPECT_FALSE(update.Deletes());
  EXPECT_EQ(commands.capabilities(), kGitCaps);
  EXPECT_TRUE(commands.ExpectsPack());
  EXPECT_EQ(commands.consumed(), 0xafu + 4);  // the command, then the flush
  EXPECT_EQ(commands.leftover(), 12u);
  EXPECT_EQ(body.substr(commands.consumed()), kPackHead);
}

TEST(ReceivePackCommandsTest, UpdateAndForceLookTheSame) {
  // --force is the server's business: the request only names old and new.
  for (auto [body, old_oid, new_oid] :
       {std::tuple{Bytes(kUpdateRequest), "f591ed8616f298190e7a74fd79ad096726da38b5",
                   "5844eff1c2ad8a431a0f8157819b115b0a120572"},
        std::tuple{Bytes(kForceRequest), "5844eff1c2ad8a431a0f8157819b115b0a120572",
                   "da6264b12aa810bca967ad8594e494da9fd14dbb"}}) {
    ReceivePackCommands commands = Fed(body);
    ASSERT_EQ(commands.progress(), Progress::kDone);
    ASSERT_EQ(commands.updates().size(), 1u);
    EXPECT_EQ(commands.updates()[0], (RefUpdate{old_oid, new_oid, "refs/heads/main"}));
    EXPECT_FALSE(commands.updates()[0].Creates());
    EXPECT_FALSE(commands.updates()[0].Deletes());
  }
}

TEST(ReceivePackCommandsTest, DeleteHasNoPack) {
  std::string_view body = Bytes(kDeleteRequest);
  ReceivePackCommands commands = Fed(body);
  ASSERT_EQ(commands.progress(), Progress::kDone);
  ASSERT_EQ(commands.updates().size(), 1u);
  EXPECT_TRUE(commands.updates()[0].Deletes());
  EXPECT_EQ(commands.updates()[0].ref, "refs/heads/feature");
  EXPECT_FALSE(commands.ExpectsPack());
  EXPECT_EQ(commands.consumed(), body.size());
  EXPECT_EQ(commands.leftover(), 0u);
}

TEST(ReceivePackCommandsTest, SeveralCommandsKeepTheirOrder) {
  ReceivePackCommands two = Fed(Bytes(kCreateTwoRequest));
  ASSERT_EQ(two.progress(), Progress::kDone);
  std::string tip = "5844eff1c2ad8a431a0f8157819b115b0a120572";
  EXPECT_EQ(two.updates(), (std::vector<RefUpdate>{{kZero, tip, "refs/heads/feature"},
                                                   {kZero, tip, "refs/tags/v1"}}));
  ReceivePackCommands mixed = Fed(Bytes(kMixedRequest));
  ASSERT_EQ(mixed.progress(), Progress::kDone);
  ASSERT_EQ(mixed.updates().size(), 2u);
  EXPECT_TRUE(mixed.updates()[0].Deletes());
  EXPECT_EQ(mixed.updates()[0].ref, "refs/heads/f2");
  EXPECT_TRUE(mixed.updates()[1].Creates());
  EXPECT_TRUE(mixed.ExpectsPack());
  EXPECT_EQ(mixed.consumed(), 0xadu + 0x65 + 4);
}

TEST(ReceivePackCommandsTest, Atomic) {
  ReceivePackCommands commands = Fed(Bytes(kAtomicRequest));
  ASSERT_EQ(commands.progress(), Progress::kDone);
  EXPECT_TRUE(commands.capabilities().count("atomic"));
  EXPECT_EQ(commands.updates().size(), 2u);
  EXPECT_EQ(commands.consumed(), sizeof(kAtomicRequest) - 1 - 12);
}

TEST(ReceivePackCommandsTest, PushOptionsAreReadToo) {
  std::string_view body = Bytes(kPushOptionRequest);
  ReceivePackCommands commands = Fed(body);
  ASSERT_EQ(commands.progress(), Progress::kDone);
  EXPECT_EQ(commands.push_options(), (std::vector<std::string>{"x", "ci.skip"}));
  EXPECT_EQ(commands.consumed(), 0xbcu + 4 + 5 + 0xb + 4);
  EXPECT_EQ(body.substr(commands.consumed()), kPackHead);
}

TEST(ReceivePackCommandsTest, ShallowLines) {
  ReceivePackCommands commands = Fed(Bytes(kShallowRequest));
  ASSERT_EQ(commands.progress(), Progress::kDone);
  EXPECT_EQ(commands.shallow(),
            (std::vector<std::string>{"36c0448028e6e46babc02a05af8eed7c40ec6a7d"}));
  ASSERT_EQ(commands.updates().size(), 1u);
  EXPECT_EQ(commands.updates()[0].ref, "refs/heads/fromshallow");
  EXPECT_EQ(commands.consumed(), 0x35u + 0xb6 + 4);
}

TEST(ReceivePackCommandsTest, Sha256) {
  ReceivePackCommands commands = Fed(Bytes(kSha256UpdateRequest));
  ASSERT_EQ(commands.progress(), Progress::kDone) << commands.error().message;
  ASSERT_EQ(commands.updates().size(), 1u);
  EXPECT_EQ(commands.updates()[0].old_oid,
            "881893c38ed24ca0e55350f1ce2e1a829bccc9827af020e4346d6f0fddb0a62d");
  EXPECT_EQ(commands.updates()[0].new_oid,
            "0abec4c3544ea867b3d9b46d66764469cde209ef4e1e991deb41e5b4f296c307");
  EXPECT_EQ(commands.consumed(), 0xe1u + 4);
}

TEST(ReceivePackCommandsTest, SignedPushIsRefused) {
  std::string message = ErrorOf(Bytes(kSignedRequest));
  EXPECT_NE(message.find("signed pushes (git push --signed) are not read by corral's proxy; "
                         "push without --signed"),
            std::string::npos);
}

TEST(ReceivePackCommandsTest, NoCommandsIsDoneAndEmpty) {
  ReceivePackCommands commands = Fed("0000");
  EXPECT_EQ(commands.progress(), Progress::kDone);
  EXPECT_TRUE(commands.updates().empty());
  EXPECT_FALSE(commands.ExpectsPack());
}

// ---- Streaming ----

TEST(ReceivePackCommandsTest, EveryCutPointReadsTheSame) {
  for (std::string_view body :
       {Bytes(kCreateRequest), Bytes(kPushOptionRequest), Bytes(kShallowRequest),
        Bytes(kAtomicRequest), Bytes(kDeleteRequest)}) {
    ReceivePackCommands whole = Fed(body);
    ASSERT_EQ(whole.progress(), Progress::kDone);
    for (std::size_t cut = 0; cut <= body.size(); ++cut) {
      ReceivePackCommands split;
      Progress first = split.Feed(body.substr(0, cut));
      Progress second = split.Feed(body.substr(cut));
      ASSERT_EQ(second, Progress::kDone) << cut;
      EXPECT_EQ(split.updates(), whole.updates());
      EXPECT_EQ(split.push_options(), whole.push_options());
      EXPECT_EQ(split.consumed(), whole.consumed());
      // leftover() counts from the Feed() that finished the list.
      std::size_t last = first == Progress::kDone ? cut : body.size() - cut;
      EXPECT_EQ(split.leftover(),
                first == Progress::kDone ? cut - whole.consumed() : body.size() - whole.consumed());
      EXPECT_LE(split.leftover(), last);
    }
    ReceivePackCommands bytewise;
    std::size_t fed = 0;
    while (fed < body.size() && bytewise.Feed(body.substr(fed, 1)) == Progress::kNeedMore) ++fed;
    EXPECT_EQ(bytewise.progress(), Progress::kDone);
    EXPECT_EQ(fed + 1, whole.consumed());  // done on the flush's last byte
    EXPECT_EQ(bytewise.leftover(), 0u);
    EXPECT_EQ(bytewise.updates(), whole.updates());
  }
}

TEST(ReceivePackCommandsTest, CutShortNeedsMore) {
  std::string_view body = Bytes(kCreateRequest);
  EXPECT_EQ(Fed(body.substr(0, 0xaf)).progress(), Progress::kNeedMore);  // flush missing
  EXPECT_EQ(Fed(body.substr(0, 0xaf + 3)).progress(), Progress::kNeedMore);
  EXPECT_EQ(Fed("").progress(), Progress::kNeedMore);
}

TEST(ReceivePackCommandsTest, FeedAfterTheEndChangesNothing) {
  ReceivePackCommands commands = Fed(Bytes(kCreateRequest));
  EXPECT_EQ(commands.Feed("garbage that is no pkt-line"), Progress::kDone);
  EXPECT_EQ(commands.leftover(), 12u);
  ReceivePackCommands failed = Fed("zzzz");
  EXPECT_EQ(failed.Feed(Bytes(kCreateRequest)), Progress::kError);
}

// ---- Hostile requests ----

TEST(ReceivePackCommandsTest, BadFramingIsAnError) {
  ErrorOf("0003");
  ErrorOf("fff1");
  ErrorOf("00zz");
  ErrorOf(Command(kZero, kA, "refs/heads/main", "report-status") + "0001");
  ErrorOf(Command(kZero, kA, "refs/heads/main", "report-status") + "0002");
}

TEST(ReceivePackCommandsTest, BadCommandsAreErrors) {
  const std::string caps = "report-status object-format=sha1";
  std::string upper(40, 'A');
  for (const std::string& body : {
           Command(kZero, upper, "refs/heads/main", caps),         // upper-case hex
           Command(kZero, kA.substr(1), "refs/heads/main", caps),  // 39 digits
           Command(kZero, kA + "a", "refs/heads/main", caps),      // 41 digits
           Command(kZero, kZero, "refs/heads/main", caps),         // neither old nor new
           Command(kZero, kA, "refs/heads/main", "object-format=sha256"),
           Command(kZero, kA, "refs/heads/main", "object-format=md5"),
           Command(kZero, kA, "refs/heads/main", "object-format=sha1 object-format=sha256"),
           Command(kZero, kA, "refs/heads/main", caps) + Command(kA, kB, "refs/heads/x", caps),
           Command(kZero, kA, "refs/heads/main", caps) + Command(kA, kB, "refs/heads/main"),
           Command(kZero, kA, "refs/heads/main", caps) +
               PktLine("shallow " + kA + "\n"),                      // shallow after a command
           PktLine(kZero + " " + kA + std::string(1, '\0') + caps),  // no ref
           PktLine(kZero + "  " + kA + " refs/heads/main"),          // two spaces
           PktLine("ERR go away"),
           PktLine("shallow " + kA.substr(2)),
           PktLine("push-cert"),
       }) {
    ErrorOf(body + "0000");
  }
  // 64-digit oids without object-format=sha256, and mixed sizes.
  std::string long_a(64, 'a');
  ErrorOf(Command(kZero + std::string(24, '0'), long_a, "refs/heads/main", "report-status") +
          "0000");
  ErrorOf(PktLine("shallow " + long_a) + Command(kZero, kA, "refs/heads/main", caps) + "0000");
}

TEST(ReceivePackCommandsTest, InvalidRefNamesAreErrors) {
  for (std::string_view ref : {"main",
                               "HEAD",
                               "refs/heads/a..b",
                               "refs/heads/a b",
                               "refs/heads/a~1",
                               "refs/heads/a^",
                               "refs/heads/a:b",
                               "refs/heads/a?",
                               "refs/heads/a*",
                               "refs/heads/a[",
                               "refs/heads/a\\b",
                               "refs/heads//a",
                               "refs/heads/a/",
                               "refs/heads/a.lock",
                               "refs/heads/a.lock/b",
                               "refs/heads/.hidden",
                               "refs/heads/a.",
                               "refs/heads/a@{1}",
                               "refs/heads/a\tb",
                               "refs/heads/a\x7f",
                               "refs/heads/a\nb",
                               "refs/",
                               ""}) {
    SCOPED_TRACE(ref);
    EXPECT_FALSE(IsValidRefName(ref));
    ErrorOf(Command(kZero, kA, ref, "report-status") + "0000");
  }
  for (std::string_view ref : {"refs/heads/main", "refs/heads/feature/x-1", "refs/tags/v1.0",
                               "refs/heads/caf\xc3\xa9", "refs/notes/commits", "refs/heads/a.b"}) {
    EXPECT_TRUE(IsValidRefName(ref)) << ref;
  }
}

TEST(ReceivePackCommandsTest, ControlCharactersInCapabilitiesOrOptions) {
  ErrorOf(Command(kZero, kA, "refs/heads/main", "report-status\tx") + "0000");
  ErrorOf(Command(kZero, kA, "refs/heads/main", "push-options") + "0000" + PktLine("a\rb") +
          "0000");
}

TEST(ReceivePackCommandsTest, TooManyCommands) {
  auto body_with = [](std::size_t count) {
    std::string body = Command(kZero, kA, "refs/heads/b0", "report-status");
    for (std::size_t i = 1; i < count; ++i) {
      body += Command(kZero, kA, "refs/heads/b" + std::to_string(i));
    }
    return body + "0000";
  };
  EXPECT_EQ(Fed(body_with(10000)).progress(), Progress::kDone);
  EXPECT_NE(ErrorOf(body_with(10001)).find("10000"), std::string::npos);
}

TEST(ReceivePackCommandsTest, TooManyBytes) {
  // 70 refs of ~65 KB each: valid names, but past 4 MiB.
  std::string body;
  for (int i = 0; i < 70; ++i) {
    std::string ref = "refs/heads/" + std::to_string(i) + std::string(65000, 'x');
    body += Command(kZero, kA, ref, i == 0 ? "report-status" : "");
  }
  body += "0000";
  EXPECT_NE(ErrorOf(body).find("4 MiB"), std::string::npos);
  // The same, a push option at a time.
  std::string options = Command(kZero, kA, "refs/heads/main", "push-options") + "0000";
  for (int i = 0; i < 70; ++i) options += PktLine(std::string(65000, 'o'));
  EXPECT_NE(ErrorOf(options + "0000").find("4 MiB"), std::string::npos);
}

// ---- Advertisements ----

TEST(ParseAdvertisementTest, ReceivePackEmptyRepository) {
  Result<Advertisement> ad = ParseAdvertisement(Bytes(kReceivePackEmptyAd));
  ASSERT_TRUE(ad.ok()) << ad.error().message;
  EXPECT_EQ(ad->service, "git-receive-pack");
  EXPECT_TRUE(ad->refs.empty());
  EXPECT_EQ(ad->capabilities,
            (std::set<std::string>{"report-status", "report-status-v2", "delete-refs",
                                   "side-band-64k", "quiet", "atomic", "ofs-delta", "push-options",
                                   "object-format=sha1", "agent=git/2.39.5"}));
  EXPECT_EQ(ad->object_format, "sha1");
  EXPECT_EQ(ad->head_target, "");
}

TEST(ParseAdvertisementTest, ReceivePackWithRefs) {
  Result<Advertisement> ad = ParseAdvertisement(Bytes(kReceivePackAd));
  ASSERT_TRUE(ad.ok()) << ad.error().message;
  std::string tip = "5844eff1c2ad8a431a0f8157819b115b0a120572";
  EXPECT_EQ(ad->refs,
            (std::map<std::string, std::string>{
                {"refs/heads/feature", tip}, {"refs/heads/main", tip}, {"refs/tags/v1", tip}}));
  EXPECT_TRUE(ad->capabilities.count("delete-refs"));
  ASSERT_TRUE(ParseAdvertisement(Bytes(kReceivePackCertAd)).ok());
}

TEST(ParseAdvertisementTest, UploadPackWithSymrefAndPeeledTag) {
  Result<Advertisement> ad = ParseAdvertisement(Bytes(kUploadPackAd));
  ASSERT_TRUE(ad.ok()) << ad.error().message;
  EXPECT_EQ(ad->service, "git-upload-pack");
  std::string main = "36c0448028e6e46babc02a05af8eed7c40ec6a7d";
  EXPECT_EQ(ad->refs, (std::map<std::string, std::string>{
                          {"HEAD", main},
                          {"refs/heads/f2", "bbd0798b2105e9f4e19ec775d6dfcca736cfab17"},
                          {"refs/heads/main", main},
                          {"refs/tags/v1", "5844eff1c2ad8a431a0f8157819b115b0a120572"},
                          {"refs/tags/v2", "9ecc2529b6cfc8699c0ab5ff00ce95667c7f930e"}}));
  EXPECT_EQ(ad->peeled, (std::map<std::string, std::string>{{"refs/tags/v2", main}}));
  EXPECT_EQ(ad->head_target, "refs/heads/main");
  EXPECT_TRUE(ad->capabilities.count("symref=HEAD:refs/heads/main"));
}

TEST(ParseAdvertisementTest, UploadPackEmptyRepository) {
  Result<Advertisement> ad = ParseAdvertisement(Bytes(kUploadPackEmptyAd));
  ASSERT_TRUE(ad.ok()) << ad.error().message;
  EXPECT_TRUE(ad->refs.empty());
  EXPECT_TRUE(ad->capabilities.empty());
  EXPECT_EQ(ad->object_format, "sha1");
}

TEST(ParseAdvertisementTest, Sha256) {
  Result<Advertisement> ad = ParseAdvertisement(Bytes(kReceivePackSha256Ad));
  ASSERT_TRUE(ad.ok()) << ad.error().message;
  EXPECT_EQ(ad->object_format, "sha256");
  EXPECT_EQ(ad->refs.at("refs/heads/main"),
            "881893c38ed24ca0e55350f1ce2e1a829bccc9827af020e4346d6f0fddb0a62d");
}

TEST(ParseAdvertisementTest, Version1LineIsSkipped) {
  std::string body = PktLine("# service=git-receive-pack\n") + "0000" + PktLine("version 1\n") +
                     PktLine(kA + " refs/heads/main" + std::string(1, '\0') + "report-status\n") +
                     "0000";
  Result<Advertisement> ad = ParseAdvertisement(body);
  ASSERT_TRUE(ad.ok()) << ad.error().message;
  EXPECT_EQ(ad->refs.at("refs/heads/main"), kA);
}

TEST(ParseAdvertisementTest, Version2IsRefused) {
  Result<Advertisement> bare = ParseAdvertisement(Bytes(kUploadPackV2Ad));
  ASSERT_FALSE(bare.ok());
  EXPECT_NE(bare.error().message.find("protocol v2"), std::string::npos);
  // As some hosts send it: the service line first.
  std::string body =
      PktLine("# service=git-upload-pack\n") + "0000" + std::string(Bytes(kUploadPackV2Ad));
  Result<Advertisement> with_service = ParseAdvertisement(body);
  ASSERT_FALSE(with_service.ok());
  EXPECT_NE(with_service.error().message.find("protocol v2"), std::string::npos);
}

TEST(ParseAdvertisementTest, MalformedIsAnError) {
  const std::string service = PktLine("# service=git-receive-pack\n") + "0000";
  const std::string nul(1, '\0');
  std::string good = std::string(Bytes(kReceivePackAd));
  for (const std::string& body : {
           std::string(),
           std::string("0000"),
           good.substr(0, good.size() - 1),                          // cut short
           good + "0000",                                            // bytes after the end
           PktLine("# service=git-frobnicate\n") + "0000" + "0000",  // unknown service
           PktLine("# service=git-receive-pack\n") + PktLine(kA + " refs/heads/a" + nul + "x") +
               "0000",                                          // no flush after service
           service + PktLine(kA + " refs/heads/a\n") + "0000",  // no capabilities
           service + PktLine(kA + " refs/heads/a" + nul + "x") + PktLine(kA + " refs/heads/a\n") +
               "0000",  // a ref twice
           service + PktLine(kA + " refs/heads/a" + nul + "x") + PktLine(kB + " refs/tags/t^{}\n") +
               "0000",  // peels what was not listed
           service + PktLine(kA + " refs/heads/a" + nul + "x") +
               PktLine(kB + " refs/heads/b" + nul) + "0000",  // a NUL on a later line
           service + PktLine(kA + " capabilities^{}" + nul + "x") + "0000",  // not the zero oid
           service + PktLine(kZero + " capabilities^{}" + nul + "x") +
               PktLine(kA + " refs/heads/a\n") + "0000",  // refs after "no refs"
           service + PktLine(kA + " refs/heads/a" + nul + "object-format=sha256") + "0000",
           service + PktLine(kA + " refs/heads/a" + nul + "object-format=sha3") + "0000",
           service + PktLine(kA + " refs/heads/a" + nul + "symref=HEAD:main") + "0000",
           service +
               PktLine(kA + " refs/heads/a" + nul +
                       "symref=HEAD:refs/heads/a symref=HEAD:refs/heads/b") +
               "0000",
           service +
               PktLine(kA + " refs/heads/a" + nul + "object-format=sha1 object-format=sha256") +
               "0000",
           service + PktLine(kA + " refs/heads/a..b" + nul + "x") + "0000",
           service + PktLine(kA + " refs/heads/a" + nul + "x") + "0001" + "0000",
           service + PktLine("version 3\n") + "0000",
           service + PktLine(std::string(40, 'A') + " refs/heads/a" + nul + "x") + "0000",
       }) {
    EXPECT_FALSE(ParseAdvertisement(body).ok()) << body;
  }
}

// ---- The refusal report ----

const std::vector<RefUpdate> kTwoUpdates = {{kA, kB, "refs/heads/main"},
                                            {kZero, kC, "refs/heads/topic"}};
const std::map<std::string, std::string> kMainRefused = {{"refs/heads/main", "corral: no"}};

// Worked out by hand from pack-protocol's report-status: lengths 4+10, 4+30, 4+79.
const std::string kPlainReport =
    "000eunpack ok\n"
    "0022ng refs/heads/main corral: no\n"
    "0053ng refs/heads/topic not pushed: another ref in this push was refused by corral\n"
    "0000";

TEST(RefusalReportTest, WithoutSideBand) {
  EXPECT_EQ(RefusalReport(kTwoUpdates, kMainRefused, {"report-status"}), kPlainReport);
  EXPECT_EQ(RefusalReport(kTwoUpdates, kMainRefused, {"report-status-v2", "quiet"}), kPlainReport);
  // Neither report-status: git cannot show it, but the body is the same.
  EXPECT_EQ(RefusalReport(kTwoUpdates, kMainRefused, {}), kPlainReport);
}

TEST(RefusalReportTest, SideBand64k) {
  std::string expected =
      "0058\2corral: this push was refused as a whole while nobody watches; nothing was written\n"
      "008c\1" +
      kPlainReport + "0000";
  EXPECT_EQ(RefusalReport(kTwoUpdates, kMainRefused, {"report-status-v2", "side-band-64k"}),
            expected);
}

TEST(RefusalReportTest, SideBandCutsInto1000BytePackets) {
  std::vector<RefUpdate> many;
  std::map<std::string, std::string> refused;
  for (int i = 0; i < 40; ++i) {
    many.push_back({kA, kB, "refs/heads/branch-" + std::to_string(i)});
    refused["refs/heads/branch-" + std::to_string(i)] = "corral: reason " + std::to_string(i);
  }
  std::string plain = RefusalReport(many, refused, {"report-status"});
  std::string banded = RefusalReport(many, refused, {"report-status", "side-band"});
  // Undo the band framing by hand: every packet at most 1000 bytes, band 1 joined.
  PktReader reader(banded);
  std::string band1;
  int packets = 0;
  for (;;) {
    Pkt pkt = reader.Next();
    if (pkt.kind == PktKind::kFlush) break;
    ASSERT_EQ(pkt.kind, PktKind::kLine);
    EXPECT_LE(pkt.size, 1000u);
    ASSERT_FALSE(pkt.payload.empty());
    if (pkt.payload[0] == '\1') band1 += pkt.payload.substr(1), ++packets;
  }
  EXPECT_TRUE(reader.rest().empty());
  EXPECT_EQ(band1, plain);
  EXPECT_GE(packets, 2);
  EXPECT_GT(plain.size(), 995u);
}

TEST(RefusalReportTest, ReasonsAreOneLine) {
  std::map<std::string, std::string> refused = {
      {"refs/heads/main", "line one\nline\ttwo\r\x1b[31m"}};
  std::string report = RefusalReport({{kA, kB, "refs/heads/main"}}, refused, {"report-status"});
  // 4 + "ng refs/heads/main " (19) + "line one line two  [31m" (23) + "\n" (1) = 47.
  EXPECT_EQ(report,
            "000eunpack ok\n"
            "002fng refs/heads/main line one line two  [31m\n"
            "0000");
  std::string empty = RefusalReport({{kA, kB, "refs/heads/main"}}, {{"refs/heads/main", ""}}, {});
  EXPECT_NE(empty.find("ng refs/heads/main refused by corral\n"), std::string::npos);
  std::string huge = RefusalReport({{kA, kB, "refs/heads/main"}},
                                   {{"refs/heads/main", std::string(100000, 'r')}}, {});
  EXPECT_LT(huge.size(), 1100u);
}

// ---- The judge ----

TEST(JudgeUpdatesTest, RefusesWhatRewritesHistory) {
  PushRules rules{{"refs/heads/main"}};
  std::string d(40, 'd');
  std::vector<RefUpdate> updates = {
      {kA, kB, "refs/heads/main"},      // protected
      {kZero, kA, "refs/heads/main2"},  // a new branch: fine
      {kA, kZero, "refs/heads/old"},    // a delete
      {kA, kB, "refs/tags/v1"},         // moves a tag
      {kZero, kB, "refs/tags/v2"},      // a new tag: fine
      {kA, kC, "refs/heads/ff"},        // a fast-forward: fine
      {kA, d, "refs/heads/rewrite"},    // not a fast-forward
  };
  std::vector<std::string> asked;
  auto is_fast_forward = [&](const RefUpdate& update) {
    asked.push_back(update.ref);
    return update.new_oid != d;
  };
  std::map<std::string, std::string> refused = JudgeUpdates(updates, rules, is_fast_forward);
  ASSERT_EQ(refused.size(), 4u);
  EXPECT_EQ(refused["refs/heads/old"],
            "corral: deleting refs/heads/old is refused while nobody watches "
            "(forge.history: allow lets it through)");
  EXPECT_NE(refused["refs/heads/main"].find("protected"), std::string::npos);
  EXPECT_NE(refused["refs/tags/v1"].find("tag"), std::string::npos);
  EXPECT_NE(refused["refs/heads/rewrite"].find("not a fast-forward"), std::string::npos);
  for (const auto& [ref, reason] : refused) {
    EXPECT_TRUE(reason.starts_with("corral: ")) << reason;
    EXPECT_NE(reason.find("nobody watches"), std::string::npos) << reason;
    EXPECT_EQ(reason.find('\n'), std::string::npos);
  }
  // Only branch updates not refused otherwise are asked about.
  EXPECT_EQ(asked, (std::vector<std::string>{"refs/heads/ff", "refs/heads/rewrite"}));
}

TEST(JudgeUpdatesTest, DeletingAProtectedRefOrATagIsADelete) {
  PushRules rules{{"refs/heads/main"}};
  auto never = [](const RefUpdate&) { return false; };
  auto refused =
      JudgeUpdates({{kA, kZero, "refs/heads/main"}, {kA, kZero, "refs/tags/v1"}}, rules, never);
  EXPECT_NE(refused["refs/heads/main"].find("deleting refs/heads/main"), std::string::npos);
  EXPECT_NE(refused["refs/tags/v1"].find("deleting refs/tags/v1"), std::string::npos);
  EXPECT_NE(JudgeUpdates({{kZero, kA, "refs/heads/main"}}, rules, never)["refs/heads/main"].find(
                "protected"),
            std::string::npos);  // creating a protected branch is a write too
  EXPECT_TRUE(JudgeUpdates({}, rules, never).empty());
}

TEST(JudgeUpdatesTest, RealPushesJudged) {
  PushRules rules{{"refs/heads/main"}};
  auto ff = [](const RefUpdate&) { return true; };
  auto judge = [&](std::string_view body, auto is_ff) {
    ReceivePackCommands commands = Fed(body);
    EXPECT_EQ(commands.progress(), Progress::kDone);
    return JudgeUpdates(commands.updates(), rules, is_ff);
  };
  EXPECT_EQ(judge(Bytes(kDeleteRequest), ff).count("refs/heads/feature"), 1u);
  EXPECT_EQ(judge(Bytes(kTagForceRequest), ff).count("refs/tags/v2"), 1u);
  EXPECT_EQ(judge(Bytes(kUpdateRequest), ff).count("refs/heads/main"), 1u);  // protected
  EXPECT_TRUE(judge(Bytes(kCreateTwoRequest), ff).empty());
  EXPECT_TRUE(judge(Bytes(kShallowRequest), ff).empty());
}

}  // namespace
}  // namespace corral::netfilter::forge
