// Bytes captured from real git 2.39.5 on this machine (see capture.sh beside
// this file): request bodies of `git push` to git-http-backend, cut 12 bytes
// into the packfile, and the bodies of `GET info/refs` advertisements.
#pragma once

namespace corral::netfilter::forge::testdata {

// ---- receive-pack request bodies (POST .../git-receive-pack) ----

// git push URL main  (into an empty repository)
constexpr char kCreateRequest[] =
    "00af0000000000000000000000000000000000000000 f591ed8616f298190e7a74fd79ad096726da38b5 refs"
    "/heads/main" "\x00"
    " report-status-v2 side-band-64k quiet object-format=sha1 agent=git/2.39.5"
    "0000"
    "PACK" "\x00" "\x00" "\x00" "\x02" "\x00" "\x00" "\x00" "\x03";

// git push URL main  (a fast-forward)
constexpr char kUpdateRequest[] =
    "00aff591ed8616f298190e7a74fd79ad096726da38b5 5844eff1c2ad8a431a0f8157819b115b0a120572 refs"
    "/heads/main" "\x00"
    " report-status-v2 side-band-64k quiet object-format=sha1 agent=git/2.39.5"
    "0000"
    "PACK" "\x00" "\x00" "\x00" "\x02" "\x00" "\x00" "\x00" "\x03";

// git push URL feature v1  (a branch and a lightweight tag, both new)
constexpr char kCreateTwoRequest[] =
    "00b20000000000000000000000000000000000000000 5844eff1c2ad8a431a0f8157819b115b0a120572 refs"
    "/heads/feature" "\x00"
    " report-status-v2 side-band-64k quiet object-format=sha1 agent=git/2.39.5"
    "00620000000000000000000000000000000000000000 5844eff1c2ad8a431a0f8157819b115b0a120572 refs"
    "/tags/v1"
    "0000"
    "PACK" "\x00" "\x00" "\x00" "\x02" "\x00" "\x00" "\x00" "\x00";

// git push URL :feature  (all deletes: no packfile follows)
constexpr char kDeleteRequest[] =
    "00b25844eff1c2ad8a431a0f8157819b115b0a120572 0000000000000000000000000000000000000000 refs"
    "/heads/feature" "\x00"
    " report-status-v2 side-band-64k quiet object-format=sha1 agent=git/2.39.5"
    "0000";

// git push --force URL main  (not a fast-forward)
constexpr char kForceRequest[] =
    "00af5844eff1c2ad8a431a0f8157819b115b0a120572 da6264b12aa810bca967ad8594e494da9fd14dbb refs"
    "/heads/main" "\x00"
    " report-status-v2 side-band-64k quiet object-format=sha1 agent=git/2.39.5"
    "0000"
    "PACK" "\x00" "\x00" "\x00" "\x02" "\x00" "\x00" "\x00" "\x03";

// git push --push-option=x --push-option=ci.skip URL main
constexpr char kPushOptionRequest[] =
    "00bcda6264b12aa810bca967ad8594e494da9fd14dbb bbd0798b2105e9f4e19ec775d6dfcca736cfab17 refs"
    "/heads/main" "\x00"
    " report-status-v2 side-band-64k quiet push-options object-format=sha1 agent=git/2.39.5"
    "0000"
    "0005x"
    "000bci.skip"
    "0000"
    "PACK" "\x00" "\x00" "\x00" "\x02" "\x00" "\x00" "\x00" "\x03";

// git push --atomic URL main f2
constexpr char kAtomicRequest[] =
    "00b6bbd0798b2105e9f4e19ec775d6dfcca736cfab17 36c0448028e6e46babc02a05af8eed7c40ec6a7d refs"
    "/heads/main" "\x00"
    " report-status-v2 side-band-64k quiet atomic object-format=sha1 agent=git/2.39.5"
    "00630000000000000000000000000000000000000000 bbd0798b2105e9f4e19ec775d6dfcca736cfab17 refs"
    "/heads/f2"
    "0000"
    "PACK" "\x00" "\x00" "\x00" "\x02" "\x00" "\x00" "\x00" "\x03";

// git push URL main:refs/heads/newb :f2  (a delete and a create)
constexpr char kMixedRequest[] =
    "00adbbd0798b2105e9f4e19ec775d6dfcca736cfab17 0000000000000000000000000000000000000000 refs"
    "/heads/f2" "\x00" " report-status-v2 side-band-64k quiet object-format=sha1 agent=git/2.39.5"
    "00650000000000000000000000000000000000000000 36c0448028e6e46babc02a05af8eed7c40ec6a7d refs"
    "/heads/newb"
    "0000"
    "PACK" "\x00" "\x00" "\x00" "\x02" "\x00" "\x00" "\x00" "\x00";

// git push --force URL v2  (an annotated tag moved)
constexpr char kTagForceRequest[] =
    "00ac9ecc2529b6cfc8699c0ab5ff00ce95667c7f930e 4d50942bc28a5c24045a9c1e5c5e544b1410b01a refs"
    "/tags/v2" "\x00" " report-status-v2 side-band-64k quiet object-format=sha1 agent=git/2.39.5"
    "0000"
    "PACK" "\x00" "\x00" "\x00" "\x02" "\x00" "\x00" "\x00" "\x01";

// git push URL HEAD:refs/heads/fromshallow  (from a --depth 1 clone)
constexpr char kShallowRequest[] =
    "0035shallow 36c0448028e6e46babc02a05af8eed7c40ec6a7d\n"
    "00b60000000000000000000000000000000000000000 684b6441a3303470dd3b61b099be9fef8ad253ce refs"
    "/heads/fromshallow" "\x00"
    " report-status-v2 side-band-64k quiet object-format=sha1 agent=git/2.39.5"
    "0000"
    "PACK" "\x00" "\x00" "\x00" "\x02" "\x00" "\x00" "\x00" "\x03";

// git -c gpg.format=ssh push --signed URL main:refs/heads/signed
constexpr char kSignedRequest[] =
    "0057push-cert" "\x00"
    " report-status-v2 side-band-64k quiet object-format=sha1 agent=git/2.39.5"
    "001ccertificate version 0.1\n"
    "0050pusher SHA256:v7/2H0EfR7//Bndby3vTD7Byh20v/QwfAqClpk6b5ng  1796687692 +0000\n"
    "002bpushee http://127.0.0.1:8765/repo.git/\n"
    "003enonce 1796687692-2dc54b13dec66a9b249fd0d82185d3947179128c\n"
    "0005\n"
    "00680000000000000000000000000000000000000000 36c0448028e6e46babc02a05af8eed7c40ec6a7d refs"
    "/heads/signed\n"
    "0022-----BEGIN SSH SIGNATURE-----\n"
    "004bU1NIU0lHAAAAAQAAADMAAAALc3NoLWVkMjU1MTkAAAAgYf7ltZ1q2q9DGTKX2pvLfNZHSN\n"
    "004budqpOXRQr+DBUCsX0AAAADZ2l0AAAAAAAAAAZzaGE1MTIAAABTAAAAC3NzaC1lZDI1NTE5\n"
    "004bAAAAQCd9KKTKQ4nkpH05u9qatsls8b//WmcsY0BR2fsLd6il+sNqdr+LEPfbU2wW/oVKm3\n"
    "001bZO0D/qhwjSdnAvm+Bq9AM=\n"
    "0020-----END SSH SIGNATURE-----\n"
    "0012push-cert-end\n"
    "0000"
    "PACK" "\x00" "\x00" "\x00" "\x02" "\x00" "\x00" "\x00" "\x00";

// git push URL main  (SHA-256 repository, a fast-forward)
constexpr char kSha256UpdateRequest[] =
    "00e1881893c38ed24ca0e55350f1ce2e1a829bccc9827af020e4346d6f0fddb0a62d 0abec4c3544ea867b3d9b"
    "46d66764469cde209ef4e1e991deb41e5b4f296c307 refs/heads/main" "\x00"
    " report-status-v2 side-band-64k quiet object-format=sha256 agent=git/2.39.5"
    "0000"
    "PACK" "\x00" "\x00" "\x00" "\x02" "\x00" "\x00" "\x00" "\x03";

// ---- advertisements (GET .../info/refs?service=...) ----

// receive-pack, empty repository
constexpr char kReceivePackEmptyAd[] =
    "001f# service=git-receive-pack\n"
    "0000"
    "00be0000000000000000000000000000000000000000 capabilities^{}" "\x00"
    "report-status report-status-v2 delete-refs side-band-64k quiet atomic ofs-delta push-optio"
    "ns object-format=sha1 agent=git/2.39.5\n"
    "0000";

// receive-pack, repository with branches and a tag
constexpr char kReceivePackAd[] =
    "001f# service=git-receive-pack\n"
    "0000"
    "00c15844eff1c2ad8a431a0f8157819b115b0a120572 refs/heads/feature" "\x00"
    "report-status report-status-v2 delete-refs side-band-64k quiet atomic ofs-delta push-optio"
    "ns object-format=sha1 agent=git/2.39.5\n"
    "003d5844eff1c2ad8a431a0f8157819b115b0a120572 refs/heads/main\n"
    "003a5844eff1c2ad8a431a0f8157819b115b0a120572 refs/tags/v1\n"
    "0000";

// receive-pack with receive.certNonceSeed set (push-cert=<nonce>)
constexpr char kReceivePackCertAd[] =
    "001f# service=git-receive-pack\n"
    "0000"
    "0103684b6441a3303470dd3b61b099be9fef8ad253ce refs/heads/fromshallow" "\x00"
    "report-status report-status-v2 delete-refs side-band-64k quiet atomic ofs-delta push-cert="
    "1796687692-2dc54b13dec66a9b249fd0d82185d3947179128c push-options object-format=sha1 agent="
    "git/2.39.5\n"
    "003d36c0448028e6e46babc02a05af8eed7c40ec6a7d refs/heads/main\n"
    "003d36c0448028e6e46babc02a05af8eed7c40ec6a7d refs/heads/newb\n"
    "003a5844eff1c2ad8a431a0f8157819b115b0a120572 refs/tags/v1\n"
    "003a4d50942bc28a5c24045a9c1e5c5e544b1410b01a refs/tags/v2\n"
    "0000";

// receive-pack, SHA-256 repository
constexpr char kReceivePackSha256Ad[] =
    "001f# service=git-receive-pack\n"
    "0000"
    "00cb881893c38ed24ca0e55350f1ce2e1a829bccc9827af020e4346d6f0fddb0a62d refs/heads/main" "\x00"
    "report-status report-status-v2 delete-refs side-band-64k quiet atomic ofs-delta object-for"
    "mat=sha256 agent=git/2.39.5\n"
    "0000";

// upload-pack, empty repository: no ref line at all
constexpr char kUploadPackEmptyAd[] =
    "001e# service=git-upload-pack\n"
    "0000"
    "0000";

// upload-pack with symref=HEAD and an annotated tag's peeled line
constexpr char kUploadPackAd[] =
    "001e# service=git-upload-pack\n"
    "0000"
    "010b36c0448028e6e46babc02a05af8eed7c40ec6a7d HEAD" "\x00"
    "multi_ack thin-pack side-band side-band-64k ofs-delta shallow deepen-since deepen-not deep"
    "en-relative no-progress include-tag multi_ack_detailed no-done symref=HEAD:refs/heads/main"
    " object-format=sha1 agent=git/2.39.5\n"
    "003bbbd0798b2105e9f4e19ec775d6dfcca736cfab17 refs/heads/f2\n"
    "003d36c0448028e6e46babc02a05af8eed7c40ec6a7d refs/heads/main\n"
    "003a5844eff1c2ad8a431a0f8157819b115b0a120572 refs/tags/v1\n"
    "003a9ecc2529b6cfc8699c0ab5ff00ce95667c7f930e refs/tags/v2\n"
    "003d36c0448028e6e46babc02a05af8eed7c40ec6a7d refs/tags/v2^{}\n"
    "0000";

// upload-pack asked with Git-Protocol: version=2 (git-http-backend sends no service line)
constexpr char kUploadPackV2Ad[] =
    "000eversion 2\n"
    "0015agent=git/2.39.5\n"
    "0013ls-refs=unborn\n"
    "0020fetch=shallow wait-for-done\n"
    "0012server-option\n"
    "0017object-format=sha1\n"
    "0010object-info\n"
    "0000";

}  // namespace corral::netfilter::forge::testdata
