// Tells the user of a command refused while they were away, besides the
// inbox: a desktop notification (notify-send, when a desktop can show one)
// and a webhook (JSON POST, retried). Never blocks a decision: refusals are
// queued and sent from a thread of its own. Private to launcher/.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "policy/policy.h"

namespace corral::launcher {

// The webhook's JSON body for one refusal.
std::string WebhookBody(const policy::InboxItem& item);

// POSTs `body` to `url`, up to `tries` times with a growing pause between
// them; ok on any 2xx answer.
Result<void> PostWebhook(const std::string& url, const std::string& body, int tries,
                         int pause_ms, long timeout_ms);

class Notifier {
 public:
  // `desktop_available`: a desktop session and notify-send exist (asked once).
  Notifier(policy::NotifyPolicy policy, bool desktop_available);
  ~Notifier();  // sends what is queued, for at most a few seconds
  Notifier(const Notifier&) = delete;
  Notifier& operator=(const Notifier&) = delete;

  bool active() const;  // anything to send to at all
  void Add(const policy::InboxItem& item);  // returns at once

  // True when this process can show desktop notifications.
  static bool DesktopAvailable();

 private:
  void Loop();
  void Send(const policy::InboxItem& item);

  policy::NotifyPolicy policy_;
  bool desktop_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<policy::InboxItem> queue_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace corral::launcher
