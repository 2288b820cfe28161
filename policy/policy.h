// Every room of policy/ at once, for the includers outside policy/ until each
// includes the room headers it uses (docs/architecture.md). To be removed.
#pragma once

#include "policy/config/config.h"
#include "policy/inbox/inbox.h"
#include "policy/matcher/matcher.h"
#include "policy/network/network.h"
#include "policy/oracle/oracle.h"
#include "policy/presence/presence.h"
#include "policy/shell/shell.h"
