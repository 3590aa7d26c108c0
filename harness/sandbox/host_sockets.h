// The host's Unix sockets that are bound to a path, kept from the case. Read-only stops writes,
// not connect(): a socket file anywhere the case can see (a folder put back for it, one outside
// the private folders) would accept its connection when its mode lets others write it, as a
// world-writable one does. The warden covers each such socket, once the case's view of the host
// is built, with an empty file that is no socket.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace reapcheck {

// The paths the sockets of `proc_net_unix` (the text of /proc/net/unix: the network namespace's
// Unix sockets) are bound to: absolute ones only, no abstract name (the case's network namespace
// has its own), each once.
std::vector<std::filesystem::path> bound_socket_paths(const std::string& proc_net_unix);

// Covers each of `paths` that is a socket in the calling process's view with an empty file of
// mode 0 (made in `workspace`, a tmpfs of the case's, and removed from there), in its (unshared)
// mount namespace; returns how many. Throws naming the step that failed.
int cover_sockets(const std::vector<std::filesystem::path>& paths,
                  const std::filesystem::path& workspace);

}  // namespace reapcheck
