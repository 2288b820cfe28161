#include "netfilter/forge/repo_path.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace corral::netfilter::forge {
namespace {

using Segments = std::vector<std::string>;

const std::string kOid = "4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393";

// The request `target` makes with `method`, through both steps as the proxy takes them.
Result<std::optional<GitRequest>> Classify(std::string_view method, std::string_view target) {
  auto resolved = ResolveTarget(target);
  if (!resolved) return resolved.error();
  return ClassifyGitRequest(method, *resolved);
}

GitRequest Request(std::string repo, GitOp op, bool write) { return {RepoPath{repo}, op, write}; }

// --- ParseRepoPath -----------------------------------------------------------

TEST(ParseRepoPath, AcceptsTheConfigForms) {
  struct Case {
    std::string_view text, path;
  };
  for (const Case& c : std::vector<Case>{
           {"owner/name", "owner/name"},
           {"owner/name.git", "owner/name"},
           {"/owner/name/", "owner/name"},
           {"/owner/name", "owner/name"},
           {"owner/name/", "owner/name"},
           {"Owner/Name.GIT", "owner/name"},
           {"group/sub/name", "group/sub/name"},
           {"group/sub/name.git", "group/sub/name"},
           {"owner/.github", "owner/.github"},
           {"owner/name.git.git", "owner/name.git"},
           {"o_1/n-2.x", "o_1/n-2.x"},
           {"owner.git/name", "owner.git/name"},  // only the last segment loses ".git"
       }) {
    auto repo = ParseRepoPath(c.text);
    ASSERT_TRUE(repo.ok()) << c.text << ": " << repo.error().message;
    EXPECT_EQ(repo->path, c.path) << c.text;
  }
}

TEST(ParseRepoPath, LengthLimitIsAfterRemovingDotGit) {
  std::string hundred(100, 'a');
  EXPECT_EQ(ParseRepoPath("o/" + hundred)->path, "o/" + hundred);
  EXPECT_EQ(ParseRepoPath("o/" + hundred + ".git")->path, "o/" + hundred);
  EXPECT_FALSE(ParseRepoPath("o/" + hundred + "a").ok());
  EXPECT_FALSE(ParseRepoPath(hundred + "a/name").ok());
}

TEST(ParseRepoPath, RefusesWhatIsNotARepository) {
  for (std::string_view text : {"",
                                "/",
                                "//",
                                "owner",
                                "/owner/",
                                "owner/",
                                "owner//name",
                                "owner/name//",
                                "//owner/name",
                                "owner/./name",
                                "owner/..",
                                "../owner/name",
                                "owner/.git",
                                "owner/..git",
                                "owner/...git",
                                "owner/na me",
                                "owner/na%6de",
                                "owner/na\xc3\xa9",
                                "owner/name?x",
                                "owner\\name",
                                "owner/name#x",
                                " owner/name",
                                "owner/name\n",
                                "owner/na+me",
                                "owner/na~me"}) {
    EXPECT_FALSE(ParseRepoPath(text).ok()) << text;
  }
  EXPECT_FALSE(ParseRepoPath(std::string_view("owner/na\0me", 11)).ok());
}

TEST(ParseRepoPath, ErrorsSayWhatIsWrongAndTheForm) {
  auto url = ParseRepoPath("https://github.com/o/n");
  ASSERT_FALSE(url.ok());
  EXPECT_NE(url.error().message.find("without the host"), std::string::npos) << url.error().message;
  auto one = ParseRepoPath("owner");
  ASSERT_FALSE(one.ok());
  EXPECT_NE(one.error().message.find("owner/name"), std::string::npos) << one.error().message;
  auto bad = ParseRepoPath("owner/na*me");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("'na*me'"), std::string::npos) << bad.error().message;
}

TEST(RepoPath, ComparesAndOrders) {
  EXPECT_EQ(*ParseRepoPath("A/B.git"), *ParseRepoPath("/a/b/"));
  EXPECT_LT(RepoPath{"a/b"}, RepoPath{"a/c"});
  EXPECT_FALSE(RepoPath{"a/c"} < RepoPath{"a/b"});
}

// --- ResolveTarget -----------------------------------------------------------

TEST(ResolveTarget, ResolvesPathsAsServersDo) {
  struct Case {
    std::string_view target;
    Segments segments;
    std::string query;
  };
  for (const Case& c : std::vector<Case>{
           {"/", {}, ""},
           {"/a/b", {"a", "b"}, ""},
           {"/a/b?x=1&y", {"a", "b"}, "x=1&y"},
           {"/a/b?", {"a", "b"}, ""},
           {"/a?b?c", {"a"}, "b?c"},
           {"/a?x=%2F%zz", {"a"}, "x=%2F%zz"},  // the query is kept as written
           {"/a//b/", {"a", "b"}, ""},
           {"//a", {"a"}, ""},
           {"/a/./b/.", {"a", "b"}, ""},
           {"/a/../b", {"b"}, ""},
           {"/a/b/..", {"a"}, ""},
           {"/a/b/../../c", {"c"}, ""},
           {"/a/%2e%2E/b", {"b"}, ""},
           {"/a/.%2e/b", {"b"}, ""},
           {"/a/%2E./b", {"b"}, ""},
           {"/a/%2e/b", {"a", "b"}, ""},
           {"/a/./../b", {"b"}, ""},
           {"/%6eame", {"name"}, ""},
           {"/%41b", {"Ab"}, ""},
           {"/a%3bb", {"a;b"}, ""},
           {"/a%20b", {"a b"}, ""},
           {"/a/..b/c..", {"a", "..b", "c.."}, ""},
           {"/a/b?q=..%2F", {"a", "b"}, "q=..%2F"},
       }) {
    auto target = ResolveTarget(c.target);
    ASSERT_TRUE(target.ok()) << c.target << ": " << target.error().message;
    EXPECT_EQ(target->segments, c.segments) << c.target;
    EXPECT_EQ(target->query, c.query) << c.target;
  }
}

TEST(ResolveTarget, RefusesWhatCouldBeReadTwoWays) {
  for (std::string_view target : {
           "",
           "*",
           "a/b",
           "http://host/a/b",
           "https://host/a",
           "?x",
           "/..",
           "/../a",
           "/a/../..",
           "/%2e%2e/a",
           "/a/%2E%2E/%2e%2e",
           "/a//../b",
           "/a/.//../b",
           "/a/b//..",
           "//..",  // merging slashes changes them
           "/a%2Fb",
           "/a%2fb",
           "/a%5cb",
           "/a%5Cb",
           "/a%3fb",
           "/a%23b",
           "/a%25b",
           "/a%2541",
           "/a%00",
           "/a%0a",
           "/a%09",
           "/a%1f",
           "/a%7f",
           "/a%80",
           "/a%c3%a9",
           "/a%ff",
           "/a%zz",
           "/a%2",
           "/a%",
           "/a%g1",
           "/a%1g",
           "/%",
           "/a\\b",
           "/a b",
           "/a\tb",
           "/a\x7f",
           "/a\xc3\xa9",
           "/a\x80",
           "/a#b",
           "/a?b#c",
           "/#",
           "/a?x=\x01",
           "/a?x y",
           "/a?\xc3\xa9",
       }) {
    EXPECT_FALSE(ResolveTarget(target).ok()) << target;
  }
  EXPECT_FALSE(ResolveTarget(std::string_view("/a\0b", 4)).ok());
}

TEST(ResolveTarget, ErrorsDoNotEchoRawBytes) {
  auto target = ResolveTarget("/a\x1b[31m");
  ASSERT_FALSE(target.ok());
  EXPECT_EQ(target.error().message.find('\x1b'), std::string::npos);
  EXPECT_NE(target.error().message.find("\\x1b"), std::string::npos) << target.error().message;
}

// --- ClassifyGitRequest ------------------------------------------------------

TEST(ClassifyGitRequest, RecognisesGitsRequests) {
  struct Case {
    std::string method, target;
    GitRequest want;
  };
  for (const Case& c : std::vector<Case>{
           {"GET", "/owner/name/info/refs?service=git-upload-pack",
            Request("owner/name", GitOp::kAdvertiseUpload, false)},
           {"GET", "/OWNER/Name.GIT/info/refs?service=git-upload-pack",
            Request("owner/name", GitOp::kAdvertiseUpload, false)},
           {"GET", "/owner/name.git/info/refs?service=git-receive-pack",
            Request("owner/name", GitOp::kAdvertiseReceive, true)},
           {"GET", "/owner//name.git/./info/refs?service=git-upload-pack",
            Request("owner/name", GitOp::kAdvertiseUpload, false)},
           {"POST", "/x/../owner/name/git-receive-pack",
            Request("owner/name", GitOp::kReceivePack, true)},
           {"POST", "/owner/%6eame/git-upload-pack",
            Request("owner/name", GitOp::kUploadPack, false)},
           {"POST", "/owner/name/%67it-receive-pack",
            Request("owner/name", GitOp::kReceivePack, true)},
           {"POST", "/group/sub/name.git/git-receive-pack",
            Request("group/sub/name", GitOp::kReceivePack, true)},
           {"POST", "/owner/name.git.git/git-upload-pack",
            Request("owner/name.git", GitOp::kUploadPack, false)},
           {"POST", "/owner/git-upload-pack/git-upload-pack",
            Request("owner/git-upload-pack", GitOp::kUploadPack, false)},
           {"POST", "/owner/name/git-receive-pack/",
            Request("owner/name", GitOp::kReceivePack, true)},
           // The dumb protocol.
           {"GET", "/owner/name/info/refs", Request("owner/name", GitOp::kDumb, false)},
           {"HEAD", "/owner/name/info/refs", Request("owner/name", GitOp::kDumb, false)},
           {"GET", "/owner/name/info/refs?", Request("owner/name", GitOp::kDumb, false)},
           {"GET", "/owner/name.git/HEAD", Request("owner/name", GitOp::kDumb, false)},
           {"HEAD", "/owner/name.git/HEAD", Request("owner/name", GitOp::kDumb, false)},
           {"GET", "/owner/name.git/objects/info/packs",
            Request("owner/name", GitOp::kDumb, false)},
           {"GET", "/owner/name/objects/4b/825dc642cb6eb9a060e54bf8d69288fbee4904",
            Request("owner/name", GitOp::kDumb, false)},
           {"GET", "/owner/name/objects/pack/pack-0123.pack",
            Request("owner/name", GitOp::kDumb, false)},
           // Git LFS.
           {"POST", "/owner/name.git/info/lfs/objects/batch",
            Request("owner/name", GitOp::kLfsBatch, false)},
           {"GET", "/owner/name.git/info/lfs/locks",
            Request("owner/name", GitOp::kLfsLocks, false)},
           {"GET", "/owner/name.git/info/lfs/locks?path=a.bin&limit=10",
            Request("owner/name", GitOp::kLfsLocks, false)},
           {"POST", "/owner/name.git/info/lfs/locks",
            Request("owner/name", GitOp::kLfsLocks, true)},
           {"POST", "/owner/name.git/info/lfs/locks/verify",
            Request("owner/name", GitOp::kLfsLocks, true)},
           {"POST", "/owner/name.git/info/lfs/locks/17/unlock",
            Request("owner/name", GitOp::kLfsLocks, true)},
           {"DELETE", "/owner/name.git/info/lfs/locks/17",
            Request("owner/name", GitOp::kLfsLocks, true)},
           {"GET", "/owner/name.git/info/lfs/objects/" + kOid,
            Request("owner/name", GitOp::kLfsObject, false)},
           {"HEAD", "/owner/name.git/info/lfs/objects/" + kOid,
            Request("owner/name", GitOp::kLfsObject, false)},
           {"PUT", "/owner/name.git/info/lfs/objects/" + kOid,
            Request("owner/name", GitOp::kLfsObject, true)},
           {"POST", "/owner/name.git/info/lfs/objects/" + kOid,
            Request("owner/name", GitOp::kLfsObject, true)},
       }) {
    auto request = Classify(c.method, c.target);
    ASSERT_TRUE(request.ok()) << c.method << " " << c.target << ": " << request.error().message;
    ASSERT_TRUE(request->has_value()) << c.method << " " << c.target;
    EXPECT_EQ(request->value().repo.path, c.want.repo.path) << c.target;
    EXPECT_EQ(request->value().op, c.want.op) << c.target;
    EXPECT_EQ(request->value().write, c.want.write) << c.method << " " << c.target;
  }
}

TEST(ClassifyGitRequest, OtherRequestsAreNotGit) {
  for (std::string_view target : {
           "/",
           "/owner",
           "/owner/name",
           "/owner/name.git",
           "/owner/name/pulls",
           "/owner/name/releases/download/v1/x.tar.gz",
           "/repos/owner/name",
           "/owner/HEAD",               // the page of a repository named HEAD
           "/owner/objects/tree/main",  // the page of a repository named objects
           "/info/refs",
           "/owner/info/refs",
           "/owner/git-receive-pack",  // no repository
           "/owner/name/head",
           "/owner/name/Objects/ab/cd",  // the dumb reads are spelled exactly
           "/owner/name/objects/ab",     // objects/ takes two segments or more
           "/owner/name/info",
           "/owner/name/refs",
           "/owner/name/info/refs/x",
       }) {
    auto request = Classify("GET", target);
    ASSERT_TRUE(request.ok()) << target << ": " << request.error().message;
    EXPECT_FALSE(request->has_value()) << target;
  }
}

TEST(ClassifyGitRequest, RefusesMalformedGitRequests) {
  struct Case {
    std::string method, target;
  };
  for (const Case& c : std::vector<Case>{
           // Paths that do not resolve.
           {"POST", "/owner/name%2Fother/git-upload-pack"},
           {"POST", "/owner/name%2fother/info/refs"},
           {"POST", "/../owner/name/git-upload-pack"},
           {"POST", "/owner/name\\git-upload-pack"},
           {"POST", "/owner/na%zzme/git-upload-pack"},
           {"POST", "/owner/name%00/git-upload-pack"},
           {"POST", "/owner/n\xc3\xa4me/git-upload-pack"},
           {"POST", "/owner/name/git-upload-pack#x"},
           // info/refs takes exactly one service parameter with one of two values.
           {"GET", "/owner/name/info/refs?service=git-upload-pack&service=git-receive-pack"},
           {"GET", "/owner/name/info/refs?service=git-receive-pack&service=git-upload-pack"},
           {"GET", "/owner/name/info/refs?service=git-upload-pack&x=1"},
           {"GET", "/owner/name/info/refs?x=1&service=git-upload-pack"},
           {"GET", "/owner/name/info/refs?service=git-upload-pack&"},
           {"GET", "/owner/name/info/refs?x=1"},
           {"GET", "/owner/name/info/refs?service="},
           {"GET", "/owner/name/info/refs?service=git-upload-archive"},
           {"GET", "/owner/name/info/refs?service=git%2dupload-pack"},
           {"GET", "/owner/name/info/refs?SERVICE=git-upload-pack"},
           {"POST", "/owner/name/info/refs?service=git-upload-pack"},
           {"HEAD", "/owner/name/info/refs?service=git-receive-pack"},
           {"PUT", "/owner/name/info/refs"},
           // The smart endpoints take POST and no query.
           {"GET", "/owner/name/git-upload-pack"},
           {"GET", "/owner/name/git-receive-pack"},
           {"PUT", "/owner/name/git-receive-pack"},
           {"post", "/owner/name/git-receive-pack"},
           {"POST", "/owner/name/git-receive-pack?x=1"},
           // LFS.
           {"GET", "/owner/name/info/lfs/objects/batch"},
           {"POST", "/owner/name/info/lfs/objects/batch?x"},
           {"DELETE", "/owner/name/info/lfs/objects/" + kOid},
           {"GET", "/owner/name/info/lfs/objects/" + kOid + "?x"},
           {"GET", "/owner/name/info/lfs/objects/notanoid"},
           {"GET",
            "/owner/name/info/lfs/objects/"
            "4D7A214614AB2935C943F9E0FF69D22EADBB8F32B1258DAAA5E2CA24D17E2393"},
           {"POST", "/owner/name/info/lfs/objects/" + kOid + "/verify"},
           {"POST", "/owner/name/info/lfs/objects"},
           {"GET", "/owner/name/info/lfs"},
           {"GET", "/owner/name/info/lfs/other"},
           // The dumb protocol only reads.
           {"POST", "/owner/name/HEAD"},
           {"PUT", "/owner/name/objects/ab/cdef"},
           {"GET", "/owner/name/HEAD?x"},
           // Git's names in another case, which a forge may take as the same.
           {"POST", "/owner/name/Git-Receive-Pack"},
           {"POST", "/owner/name/GIT-UPLOAD-PACK"},
           {"GET", "/owner/name/INFO/refs?service=git-upload-pack"},
           {"GET", "/owner/name/info/Refs"},
           {"POST", "/owner/name/info/LFS/objects/batch"},
           {"POST", "/owner/name/info/lfs/objects/Batch"},
           {"GET", "/owner/name/info/lfs/Locks"},
           // A repository no forge would accept, in a git-shaped path.
           {"POST", "/owner/na+me/git-receive-pack"},
           {"POST", "/owner/name%20x/git-receive-pack"},
           {"POST", "/owner/.git/git-upload-pack"},
           {"POST", "/owner/" + std::string(101, 'n') + "/git-receive-pack"},
           // Two readings naming two repositories.
           {"GET", "/owner/name/info/lfs/locks/info/refs?service=git-upload-pack"},
           {"GET", "/owner/name/objects/x/info/refs"},
           {"GET", "/owner/name/objects/a/objects/b/c"},
           {"POST", "/owner/name/info/lfs/locks/x/git-receive-pack"},
       }) {
    auto request = Classify(c.method, c.target);
    EXPECT_FALSE(request.ok()) << c.method << " " << c.target << " gave "
                               << (request.ok() && request->has_value() ? request->value().repo.path
                                                                        : "nothing");
  }
}

TEST(ClassifyGitRequest, AmbiguityErrorNamesBothRepositories) {
  auto request = Classify("GET", "/owner/name/objects/x/info/refs");
  ASSERT_FALSE(request.ok());
  EXPECT_NE(request.error().message.find("'owner/name'"), std::string::npos)
      << request.error().message;
  EXPECT_NE(request.error().message.find("'owner/name/objects/x'"), std::string::npos);
}

TEST(ClassifyGitRequest, TakesSegmentsBuiltByHand) {
  Target target{{"Owner", "Name.git", "git-receive-pack"}, ""};
  auto request = ClassifyGitRequest("POST", target);
  ASSERT_TRUE(request.ok() && request->has_value());
  EXPECT_EQ(**request, Request("owner/name", GitOp::kReceivePack, true));
}

// --- LfsBatchIsUpload --------------------------------------------------------

TEST(LfsBatchIsUpload, ReadsTheOperation) {
  EXPECT_EQ(*LfsBatchIsUpload(R"({"operation":"upload","transfers":["basic"],)"
                              R"("ref":{"name":"refs/heads/main"},)"
                              R"("objects":[{"oid":"4d7a","size":123}],"hash_algo":"sha256"})"),
            true);
  EXPECT_EQ(*LfsBatchIsUpload(R"({"operation":"download","objects":[]})"), false);
  EXPECT_EQ(*LfsBatchIsUpload(" {\n \"objects\": [], \"operation\" : \"upload\" }\n"), true);
  EXPECT_EQ(*LfsBatchIsUpload(R"({"operation":"\u0075pload"})"), true);  // JSON's own escape
  EXPECT_EQ(*LfsBatchIsUpload(R"({"ref":{"operation":"upload"},"operation":"download"})"), false);
  EXPECT_EQ(*LfsBatchIsUpload("{\"operation\":\"upload\",\"x\":\"\xc3\xa9\"}"), true);
}

TEST(LfsBatchIsUpload, RefusesAnythingElse) {
  for (std::string_view body : {
           "",
           " ",
           "null",
           "[]",
           "\"upload\"",
           "1",
           "{}",
           R"({"objects":[]})",
           R"({"operation":"Upload"})",
           R"({"operation":"delete"})",
           R"({"operation":""})",
           R"({"operation":1})",
           R"({"operation":null})",
           R"({"operation":true})",
           R"({"operation":["upload"]})",
           R"({"operation":{"x":"upload"}})",
           R"({"operation":"upload","operation":"download"})",
           R"({"operation":"download","operation":"upload"})",
           R"({"operation":"download","\u006fperation":"upload"})",
           R"({"operation":"upload","ref":{"name":"a","name":"b"}})",
           R"({"operation":"upload"} x)",
           R"({"operation":"upload"}{})",
           R"({"operation":"upload")",
           R"({"operation":"upload",})",
           R"({operation:"upload"})",
           "{\"operation\":\"upl\xc3oad\"}",
           "{\"operation\":\"upload\",\"x\":\"\xff\"}",
           R"(/*c*/{"operation":"upload"})",
       }) {
    EXPECT_FALSE(LfsBatchIsUpload(body).ok()) << body;
  }
  EXPECT_FALSE(LfsBatchIsUpload(std::string_view("{\"operation\":\"upload\"}\0", 23)).ok());
}

TEST(LfsBatchIsUpload, DeepNestingNeitherCrashesNorConfuses) {
  std::string deep = R"({"a":)" + std::string(100000, '[') + std::string(100000, ']') +
                     R"(,"operation":"upload"})";
  EXPECT_EQ(*LfsBatchIsUpload(deep), true);
  EXPECT_FALSE(LfsBatchIsUpload(std::string(100000, '[')).ok());
  EXPECT_FALSE(LfsBatchIsUpload(std::string(100000, '{')).ok());
}

// --- Hostile input -----------------------------------------------------------

// Random bytes drawn mostly from the characters that matter here: nothing
// crashes (under the sanitizers), and every resolved target is clean.
TEST(Hostile, RandomTargetsResolveCleanlyOrNotAtAll) {
  const std::string alphabet = "/.%2eEfF0a?#\\&=-_~gG";
  std::mt19937 random(20240611);
  for (int round = 0; round < 50000; ++round) {
    std::string text = "/";
    std::size_t length = random() % 24;
    for (std::size_t i = 0; i < length; ++i) {
      text += random() % 16 == 0 ? static_cast<char>(random() % 256)
                                 : alphabet[random() % alphabet.size()];
    }
    auto target = ResolveTarget(text);
    if (target.ok()) {
      for (const std::string& segment : target->segments) {
        EXPECT_FALSE(segment.empty() || segment == "." || segment == "..") << text;
        EXPECT_EQ(segment.find_first_of("/\\?#%"), std::string::npos) << text;
      }
      (void)ClassifyGitRequest(random() % 2 ? "GET" : "POST", *target);
    }
    (void)ParseRepoPath(text);
    (void)LfsBatchIsUpload(text);
  }
}

}  // namespace
}  // namespace corral::netfilter::forge
