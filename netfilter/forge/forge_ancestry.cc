// When a push's own commits do not prove a fast-forward (its new commit is
// already on the forge, or its history leaves the pack through a commit
// the forge has), the forge is asked: an upload-pack request that wants
// the commits where the walk left the pack and has the old one. Its answer
// holds the commits between; if the old commit is their ancestor, the walk
// reaches it through them. Built and read here; sent by the server.
#include <unordered_set>

#include "netfilter/forge/forge.h"
#include "netfilter/forge/pack_reader.h"
#include "netfilter/forge/pkt_line.h"

namespace corral::netfilter::forge {

std::vector<std::string> LeftThePack(const CommitGraph& commits, const std::string& new_oid) {
  std::vector<std::string> outside;
  std::vector<const std::string*> todo = {&new_oid};
  std::unordered_set<std::string_view> seen;
  while (!todo.empty()) {
    const std::string& oid = *todo.back();
    todo.pop_back();
    if (!seen.insert(oid).second) continue;
    auto found = commits.find(oid);
    if (found == commits.end()) {
      outside.push_back(oid);
      continue;
    }
    for (const std::string& parent : found->second) todo.push_back(&parent);
  }
  return outside;
}

std::string UploadPackRequest(const std::vector<std::string>& wants, const std::string& have, bool sha256) {
  std::string body;
  for (std::size_t i = 0; i < wants.size(); ++i) {
    std::string line = "want " + wants[i];
    if (i == 0) {
      line += " multi_ack_detailed side-band-64k ofs-delta no-progress";
      if (sha256) line += " object-format=sha256";
    }
    body += PktLine(line + "\n");
  }
  body += std::string(kFlushPkt);
  body += PktLine("have " + have + "\n");
  body += PktLine("done\n");
  return body;
}

Result<CommitGraph> CommitsOfUploadPackAnswer(std::string_view answer, bool sha256) {
  PackReader pack(sha256 ? ObjectFormat::kSha256 : ObjectFormat::kSha1);
  PktReader reader(answer);
  bool in_pack = false;
  while (true) {
    Pkt pkt = reader.Next();
    if (pkt.kind == PktKind::kError) return Error("the forge's answer: " + pkt.error);
    if (pkt.kind == PktKind::kNeedMore) return Error("the forge's answer ended early");
    if (pkt.kind == PktKind::kFlush) break;
    if (pkt.kind != PktKind::kLine || pkt.payload.empty()) continue;
    unsigned char band = static_cast<unsigned char>(pkt.payload[0]);
    if (!in_pack && (pkt.payload.starts_with("ACK ") || pkt.payload.starts_with("NAK"))) continue;
    in_pack = true;
    if (band == 1) {
      if (auto fed = pack.Feed(pkt.payload.substr(1)); !fed) return fed.error().Context("the forge's pack");
    } else if (band == 3) {
      return Error("the forge answered: " + std::string(pkt.payload.substr(1, 200)));
    } else if (band != 2) {
      return Error("the forge's answer is not in side-band form");
    }
  }
  if (auto done = pack.Finish(); !done) return done.error().Context("the forge's pack");
  return pack.commits();
}

}  // namespace corral::netfilter::forge
