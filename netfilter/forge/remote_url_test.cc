#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "netfilter/forge/repo_path.h"

namespace corral::netfilter::forge {
namespace {

// How git splits scp-like and ssh:// URLs was checked against git 2.39 with
// GIT_SSH_COMMAND set to a script that prints its arguments: git@[::1]:o/r.git
// goes to host ::1 with path o/r.git; ssh://git@h:2222/o/%72.git to port 2222,
// path /o/r.git (decoded); git@host:o/%72 keeps path o/%72 (not decoded).
TEST(ParseRemoteUrl, ReadsEveryForm) {
  struct Case {
    std::string url, host, scheme, repo;
  };
  for (const Case& c : std::vector<Case>{
           {"https://github.com/owner/name", "github.com:443", "https", "owner/name"},
           {"https://github.com/owner/name.git", "github.com:443", "https", "owner/name"},
           {"https://github.com/owner/name.git/", "github.com:443", "https", "owner/name"},
           {"https://GitHub.COM/Owner/Name.GIT", "github.com:443", "https", "owner/name"},
           {"HTTPS://github.com/o/r", "github.com:443", "https", "o/r"},
           {"https://user@github.com/o/r", "github.com:443", "https", "o/r"},
           {"https://user:tok3n@github.com/o/r", "github.com:443", "https", "o/r"},
           {"https://git.example.com:8443/group/sub/proj.git", "git.example.com:8443", "https",
            "group/sub/proj"},
           {"https://github.com:443/o/r", "github.com:443", "https", "o/r"},
           {"https://git_host.internal/o/r", "git_host.internal:443", "https", "o/r"},
           {"https://10.0.0.7/o/r", "10.0.0.7:443", "https", "o/r"},
           {"http://host.example/o/r", "host.example:80", "http", "o/r"},
           {"http://host.example:8080/o/r.git", "host.example:8080", "http", "o/r"},
           {"ssh://git@github.com/o/r.git", "github.com:22", "ssh", "o/r"},
           {"ssh://git@github.com:2222/o/r.git", "github.com:2222", "ssh", "o/r"},
           {"ssh://github.com/o/r", "github.com:22", "ssh", "o/r"},
           {"ssh://u:p@h.example/o/r", "h.example:22", "ssh", "o/r"},
           {"git+ssh://git@host/o/r", "host:22", "ssh", "o/r"},
           {"ssh+git://host/o/r", "host:22", "ssh", "o/r"},
           {"git@github.com:o/r.git", "github.com:22", "ssh", "o/r"},
           {"git@github.com:o/r.git/", "github.com:22", "ssh", "o/r"},
           {"github.com:o/r", "github.com:22", "ssh", "o/r"},
           {"git@GitLab.com:Group/Sub/Proj.git", "gitlab.com:22", "ssh", "group/sub/proj"},
           {"git://example.org/o/r", "example.org:9418", "git", "o/r"},
           {"git://example.org:1234/o/r.git", "example.org:1234", "git", "o/r"},
           // IPv6 literals.
           {"https://[::1]:8443/o/r", "[::1]:8443", "https", "o/r"},
           {"https://[::1]/o/r", "[::1]:443", "https", "o/r"},
           {"ssh://git@[2001:DB8::1]/o/r", "[2001:db8::1]:22", "ssh", "o/r"},
           {"ssh://[::1]:2222/o/r", "[::1]:2222", "ssh", "o/r"},
           {"git@[::1]:o/r.git", "[::1]:22", "ssh", "o/r"},
           {"[::ffff:10.0.0.1]:o/r", "[::ffff:10.0.0.1]:22", "ssh", "o/r"},
           // URL paths are decoded and resolved as a request's would be.
           {"https://host/o/%6eame", "host:443", "https", "o/name"},
           {"ssh://git@host/o/%72.git", "host:22", "ssh", "o/r"},
           {"https://host/x/../o/r", "host:443", "https", "o/r"},
           {"https://host//o//r", "host:443", "https", "o/r"},
           {"https://host/./o/r/.", "host:443", "https", "o/r"},
       }) {
    auto remote = ParseRemoteUrl(c.url);
    ASSERT_TRUE(remote.ok()) << c.url << ": " << remote.error().message;
    EXPECT_EQ(remote->host, c.host) << c.url;
    EXPECT_EQ(remote->scheme, c.scheme) << c.url;
    EXPECT_EQ(remote->repo.path, c.repo) << c.url;
  }
}

TEST(ParseRemoteUrl, RepositoryIsTheSameOverEveryScheme) {
  RepoPath want{"owner/name"};
  for (std::string_view url : {"git@github.com:owner/name.git", "https://github.com/Owner/Name",
                               "ssh://git@github.com/owner/name", "git://github.com/owner/name.git",
                               "http://github.com/OWNER/name/"}) {
    auto remote = ParseRemoteUrl(url);
    ASSERT_TRUE(remote.ok()) << url << ": " << remote.error().message;
    EXPECT_EQ(remote->repo, want) << url;
  }
}

TEST(ParseRemoteUrl, RefusesWhatIsNotAForgeRemote) {
  for (std::string_view url : {
           // Not on a forge.
           "",
           "/srv/git/r.git",
           "../other",
           "./r",
           "r.git",
           "file:///srv/r.git",
           "FILE:///srv/r",
           "ext::ssh -p 22 host %S r",
           "fd::17",
           "foo::https://github.com/o/r",
           "ftp://host/o/r",
           "ftps://host/o/r",
           "rsync://host/o/r",
           "svn://host/o/r",
           "C:\\repo",
           "c:/repo",
           // A path on the server's disk or in a user's home.
           "git@github.com:/o/r.git",
           "host:/abs/path",
           "host:~user/r.git",
           "host:~/r.git",
           "ssh://host/~user/r.git",
           "git://host/~user/r.git",
           // No repository, or not one a forge has.
           "https://github.com",
           "https://github.com/",
           "https://github.com/owner",
           "https://github.com/owner/",
           "git@host:o",
           "git@host:",
           "git@host:o//r",
           "git@host:o/./r",
           "git@host:o/../r",
           "git@host:o/%72",
           "git@host:o/r:x",
           "https://host/o/re+po",
           "https://host/o/.git",
           "git@host:o/r.git?x",
           // Hosts and ports.
           "https:///o/r",
           "https://@/o/r",
           "https://host:/o/r",
           "https://host:0/o/r",
           "https://host:65536/o/r",
           "https://host:99999/o/r",
           "https://host:123456/o/r",
           "https://host:12a/o/r",
           "https://host:-1/o/r",
           "https://host:80:80/o/r",
           "https://a@b@host/o/r",
           "a@b@host:o/r",
           "git://user@host/o/r",
           "git@:o/r",
           ":o/r",
           "https://ho%73t/o/r",
           "https://.host/o/r",
           "https://host./o/r",
           "https://a..b/o/r",
           "https://ho*st/o/r",
           "https://[::1/o/r",
           "https://[::1]x/o/r",
           "https://[zz::1]/o/r",
           "https://[fe80::1%25eth0]/o/r",
           "https://[]/o/r",
           "https://[1.2.3.4]/o/r",
           "git@[::1:o/r",
           "git@[::1]o/r",
           "git@[::1]",
           "git@ho[st:o/r",
           // The path: a query, a fragment, escapes that split or hide, '..' above the root.
           "https://host/o/r?x",
           "https://host/o/r#frag",
           "https://host/o%2Fr/x",
           "ssh://host/o/r%2Fx",
           "https://host/o/r%00",
           "https://host/o/r%2",
           "https://host/o/r%zz",
           "https://host/../o/r",
           "https://host/a//../o/r",
           // Bytes no URL holds.
           "https://host name/o/r",
           "https://host/o/r\n",
           " https://host/o/r",
           "https://h\xc3\xb4st/o/r",
           "https://host/o/r\x7f",
           "https://host\\o\\r",
       }) {
    auto remote = ParseRemoteUrl(url);
    EXPECT_FALSE(remote.ok()) << url << " gave "
                              << (remote.ok() ? remote->host + " " + remote->repo.path : "");
  }
  EXPECT_FALSE(ParseRemoteUrl(std::string_view("https://host/o/r\0x", 18)).ok());
}

TEST(ParseRemoteUrl, ErrorsNameTheRemoteAndWhatIsWrong) {
  auto local = ParseRemoteUrl("/srv/git/r.git");
  ASSERT_FALSE(local.ok());
  EXPECT_EQ(local.error().message.rfind("remote '/srv/git/r.git': ", 0), 0u)
      << local.error().message;
  auto helper = ParseRemoteUrl("ext::ssh host %S r");
  ASSERT_FALSE(helper.ok());
  EXPECT_NE(helper.error().message.find("remote helper 'ext'"), std::string::npos)
      << helper.error().message;
  auto port = ParseRemoteUrl("https://host:70000/o/r");
  ASSERT_FALSE(port.ok());
  EXPECT_NE(port.error().message.find("'70000'"), std::string::npos) << port.error().message;
  auto control = ParseRemoteUrl("https://host/o/r\x1b[2J");
  ASSERT_FALSE(control.ok());
  EXPECT_EQ(control.error().message.find('\x1b'), std::string::npos);
}

TEST(ParseRemoteUrl, RandomBytesNeverCrash) {
  const std::string alphabet = "htps:/@[]:.%2fgit~-_0189aA?#";
  std::mt19937 random(7);
  for (int round = 0; round < 50000; ++round) {
    std::string url = round % 2 ? "https://" : "";
    std::size_t length = random() % 28;
    for (std::size_t i = 0; i < length; ++i) {
      url += random() % 16 == 0 ? static_cast<char>(random() % 256)
                                : alphabet[random() % alphabet.size()];
    }
    auto remote = ParseRemoteUrl(url);
    if (remote.ok()) {
      EXPECT_NE(remote->host.rfind(':'), std::string::npos) << url;
      EXPECT_TRUE(ParseRepoPath(remote->repo.path).ok()) << url;
    }
  }
}

}  // namespace
}  // namespace corral::netfilter::forge
