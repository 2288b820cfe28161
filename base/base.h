// corral's foundation: error values, owned file descriptors (and writing all
// of a buffer to one), whole files read and files locked, unix sockets,
// logging, times as text, Trim, starting programs with nothing of ours open in
// them, keepers (forked helpers), vectors whose buffers are kept for the next.
// The one public header of base/; every other folder may include it.
#pragma once

#include "base/child_descriptors.h"
#include "base/files.h"
#include "base/json_text.h"
#include "base/keeper.h"
#include "base/log.h"
#include "base/result.h"
#include "base/reused_vector.h"
#include "base/strings.h"
#include "base/subprocess.h"
#include "base/time_text.h"
#include "base/unique_fd.h"
#include "base/unix_socket.h"
