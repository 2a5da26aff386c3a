// libs4bxi-pmi: the PMI-1 calls of a rank, over the PMI-1 wire protocol that
// s4bxi-simserver speaks on the rank's PMI_FD socket.
//
// The library MPI runtimes load to bootstrap under s4bxi-run (OpenMPI: its
// pmix/flux component, FLUX_PMI_LIBRARY_PATH). Rank and size come from
// PMI_RANK and PMI_SIZE, the ranks of the node from S4BXI_NODE_RANKS; the
// rest is asked of the server, one request line and one answer line at a
// time, the exchanges of the process's threads serialized by a mutex. Puts
// reach the server at once, so a commit has nothing left to send. Without
// PMI_FD the process is a singleton job (rank 0 of 1, a key-value space of
// its own), as simple-PMI clients make it.
#include "node_ranks.hpp"
#include "pmi.h"
#include "pmi_wire.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <sys/socket.h>
#include <unistd.h>
#include <vector>

#define S4BXI_PMI_EXPORT __attribute__((visibility("default")))

namespace s4bxi::pmi_client {
namespace {

struct Client {
  std::mutex exchange_mutex; // one request and its answer at a time; guards the state below
  std::mutex send_mutex;     // whole lines on the socket (PMI_Abort sends without exchange_mutex)
  std::atomic<bool> initialized{false}; // also read without the mutex (PMI_Initialized)
  bool singleton = false;
  int fd = -1;
  int rank = 0;
  int size = 1;
  int spawned = 0;
  std::vector<int> clique;
  std::string kvs_name;
  int kvs_name_max = 0;
  int key_max = 0;
  int value_max = 0;
  std::optional<int> appnum;
  std::optional<int> universe_size;
  std::string pending;                         // bytes received after the last answer line
  std::map<std::string, std::string> own_kvs; // the singleton's key-value space
};

Client client;

bool parse_int(const char* text, int& value)
{
  if (text == nullptr)
    return false;
  std::string_view view(text);
  auto [end, error] = std::from_chars(view.data(), view.data() + view.size(), value);
  return error == std::errc() and end == view.data() + view.size() and not view.empty();
}

bool send_line(const std::string& line)
{
  std::lock_guard lock(client.send_mutex);
  size_t done = 0;
  while (done < line.size()) {
    ssize_t sent = send(client.fd, line.data() + done, line.size() - done, MSG_NOSIGNAL);
    if (sent < 0 and errno == ENOTSOCK) // a pipe given as PMI_FD
      sent = write(client.fd, line.data() + done, line.size() - done);
    if (sent < 0 and errno == EINTR)
      continue;
    if (sent <= 0)
      return false;
    done += static_cast<size_t>(sent);
  }
  return true;
}

std::optional<std::string> receive_line()
{
  size_t newline;
  while ((newline = client.pending.find('\n')) == std::string::npos) {
    char buffer[4096];
    ssize_t got = read(client.fd, buffer, sizeof buffer);
    if (got < 0 and errno == EINTR)
      continue;
    if (got <= 0)
      return std::nullopt;
    client.pending.append(buffer, static_cast<size_t>(got));
  }
  std::string line = client.pending.substr(0, newline);
  client.pending.erase(0, newline + 1);
  return line;
}

// Sends one command and returns the server's answer if it is `expected` with
// rc=0. The caller holds exchange_mutex.
std::optional<pmi::Command> exchange(const std::string& name,
                                     const std::vector<std::pair<std::string, std::string>>& fields,
                                     const std::string& expected)
{
  if (not send_line(pmi::format_line(name, fields)))
    return std::nullopt;
  auto line = receive_line();
  if (not line)
    return std::nullopt;
  auto answer = pmi::parse_line(*line);
  if (not answer or answer->name != expected or answer->field("rc") != "0")
    return std::nullopt;
  return answer;
}

std::optional<int> int_field(const pmi::Command& answer, const std::string& key)
{
  int value = 0;
  if (not parse_int(answer.field(key).c_str(), value))
    return std::nullopt;
  return value;
}

// A word of a command line: no space (it ends a field), no '=' (it ends a
// key), no newline (it ends the line).
bool is_word(const char* text)
{
  return *text != '\0' and std::strpbrk(text, " =\n\r") == nullptr;
}

int copy_out(const std::string& text, char* out, int length)
{
  if (out == nullptr)
    return PMI_ERR_INVALID_ARG;
  if (length <= 0)
    return PMI_ERR_INVALID_LENGTH;
  if (text.size() >= static_cast<size_t>(length)) {
    std::memcpy(out, text.data(), static_cast<size_t>(length) - 1);
    out[length - 1] = '\0';
    return PMI_ERR_INVALID_LENGTH;
  }
  std::memcpy(out, text.c_str(), text.size() + 1);
  return PMI_SUCCESS;
}

int init(int* spawned)
{
  std::lock_guard lock(client.exchange_mutex);
  if (spawned == nullptr)
    return PMI_ERR_INVALID_ARG;
  if (client.initialized) {
    *spawned = client.spawned;
    return PMI_SUCCESS;
  }
  const char* fd_text = std::getenv("PMI_FD");
  if (fd_text == nullptr) {
    client.singleton = true;
    client.rank = 0;
    client.size = 1;
    client.spawned = 0;
    client.clique = {0};
    client.kvs_name = "singleton_kvs_" + std::to_string(getpid());
    client.kvs_name_max = 256;
    client.key_max = 256;
    client.value_max = 1024;
    client.appnum = 0;
    client.universe_size = 1;
    client.initialized = true;
    *spawned = 0;
    return PMI_SUCCESS;
  }
  int fd = -1;
  int rank = -1;
  int size = 0;
  if (not parse_int(fd_text, fd) or not parse_int(std::getenv("PMI_RANK"), rank) or
      not parse_int(std::getenv("PMI_SIZE"), size) or fd < 0 or size <= 0 or rank < 0 or rank >= size)
    return PMI_FAIL;
  int spawned_flag = 0;
  if (not parse_int(std::getenv("PMI_SPAWNED"), spawned_flag))
    spawned_flag = 0;
  client.singleton = false;
  client.fd = fd;
  client.rank = rank;
  client.size = size;
  client.spawned = spawned_flag;
  client.pending.clear();

  if (not exchange("init", {{"pmi_version", "1"}, {"pmi_subversion", "1"}}, "response_to_init"))
    return PMI_FAIL;
  auto maxes = exchange("get_maxes", {}, "maxes");
  if (not maxes)
    return PMI_FAIL;
  auto kvs_name_max = int_field(*maxes, "kvsname_max");
  auto key_max = int_field(*maxes, "keylen_max");
  auto value_max = int_field(*maxes, "vallen_max");
  if (not kvs_name_max or not key_max or not value_max)
    return PMI_FAIL;
  client.kvs_name_max = *kvs_name_max;
  client.key_max = *key_max;
  client.value_max = *value_max;
  auto name = exchange("get_my_kvsname", {}, "my_kvsname");
  if (not name or name->field("kvsname").empty())
    return PMI_FAIL;
  client.kvs_name = name->field("kvsname");

  client.clique = {rank};
  if (const char* text = std::getenv(kEnvNodeRanks))
    if (auto ranks = parse_node_ranks(text, rank, size))
      client.clique = std::move(*ranks);
  client.appnum.reset();
  client.universe_size.reset();
  client.initialized = true;
  *spawned = client.spawned;
  return PMI_SUCCESS;
}

// A value the server gives on request and that never changes in a job.
int ask_once(std::optional<int>& cache, const char* command, const char* answer_name, const char* field, int* out)
{
  std::lock_guard lock(client.exchange_mutex);
  if (not client.initialized)
    return PMI_ERR_INIT;
  if (out == nullptr)
    return PMI_ERR_INVALID_ARG;
  if (not cache) {
    auto answer = exchange(command, {}, answer_name);
    if (not answer)
      return PMI_FAIL;
    cache = int_field(*answer, field);
    if (not cache)
      return PMI_FAIL;
  }
  *out = *cache;
  return PMI_SUCCESS;
}

int local_int(int Client::* member, int* out)
{
  std::lock_guard lock(client.exchange_mutex);
  if (not client.initialized)
    return PMI_ERR_INIT;
  if (out == nullptr)
    return PMI_ERR_INVALID_ARG;
  *out = client.*member;
  return PMI_SUCCESS;
}

int my_name(char* name, int length)
{
  std::lock_guard lock(client.exchange_mutex);
  if (not client.initialized)
    return PMI_ERR_INIT;
  return copy_out(client.kvs_name, name, length);
}

// The checks put and get share: a key-value space name and a key the wire
// can carry (one word each), the key within the length the server announced.
int check_kvs_key(const char* kvs_name, const char* key)
{
  if (kvs_name == nullptr or not is_word(kvs_name))
    return PMI_ERR_INVALID_ARG;
  if (key == nullptr)
    return PMI_ERR_INVALID_KEY;
  if (*key == '\0' or std::strlen(key) >= static_cast<size_t>(client.key_max))
    return PMI_ERR_INVALID_KEY_LENGTH;
  if (not is_word(key))
    return PMI_ERR_INVALID_KEY;
  return PMI_SUCCESS;
}

int put(const char* kvs_name, const char* key, const char* value)
{
  std::lock_guard lock(client.exchange_mutex);
  if (not client.initialized)
    return PMI_ERR_INIT;
  if (int rc = check_kvs_key(kvs_name, key); rc != PMI_SUCCESS)
    return rc;
  if (value == nullptr or std::strpbrk(value, "\n\r") != nullptr)
    return PMI_ERR_INVALID_VAL;
  if (std::strlen(value) >= static_cast<size_t>(client.value_max))
    return PMI_ERR_INVALID_VAL_LENGTH;
  if (client.singleton) {
    if (client.kvs_name != kvs_name)
      return PMI_FAIL;
    client.own_kvs[key] = value;
    return PMI_SUCCESS;
  }
  // value= last: it runs to the end of the line (pmi_wire.hpp).
  return exchange("put", {{"kvsname", kvs_name}, {"key", key}, {"value", value}}, "put_result") ? PMI_SUCCESS
                                                                                                   : PMI_FAIL;
}

int get(const char* kvs_name, const char* key, char* value, int length)
{
  std::lock_guard lock(client.exchange_mutex);
  if (not client.initialized)
    return PMI_ERR_INIT;
  if (int rc = check_kvs_key(kvs_name, key); rc != PMI_SUCCESS)
    return rc;
  if (value == nullptr)
    return PMI_ERR_INVALID_VAL;
  if (length <= 0)
    return PMI_ERR_INVALID_LENGTH;
  if (client.singleton) {
    auto it = client.own_kvs.find(key);
    if (client.kvs_name != kvs_name or it == client.own_kvs.end())
      return PMI_FAIL;
    return copy_out(it->second, value, length);
  }
  auto answer = exchange("get", {{"kvsname", kvs_name}, {"key", key}}, "get_result");
  if (not answer) // also a key nobody put: the caller may try again after a barrier
    return PMI_FAIL;
  return copy_out(answer->field("value"), value, length);
}

int commit(const char* kvs_name)
{
  std::lock_guard lock(client.exchange_mutex);
  if (not client.initialized)
    return PMI_ERR_INIT;
  if (kvs_name == nullptr or not is_word(kvs_name))
    return PMI_ERR_INVALID_ARG;
  return PMI_SUCCESS;
}

int barrier()
{
  std::lock_guard lock(client.exchange_mutex);
  if (not client.initialized)
    return PMI_ERR_INIT;
  if (client.singleton)
    return PMI_SUCCESS;
  return exchange("barrier_in", {}, "barrier_out") ? PMI_SUCCESS : PMI_FAIL;
}

int finalize()
{
  std::lock_guard lock(client.exchange_mutex);
  if (not client.initialized)
    return PMI_SUCCESS;
  client.initialized = false;
  client.own_kvs.clear();
  if (client.singleton)
    return PMI_SUCCESS;
  // The socket stays open: PMI_Init may come again (a runtime that failed to
  // start and retries), and the server serves the rank until it ends.
  return exchange("finalize", {}, "finalize_ack") ? PMI_SUCCESS : PMI_FAIL;
}

// Neither exchange_mutex (another thread may wait in a barrier that will now
// never complete) nor an answer: the server ends the whole job.
[[noreturn]] void abort_job(int exit_code, const char* message)
{
  if (message != nullptr and *message != '\0') {
    std::string text = "PMI_Abort(" + std::to_string(exit_code) + "): " + message + "\n";
    [[maybe_unused]] auto written = write(STDERR_FILENO, text.data(), text.size());
  }
  if (client.fd >= 0 and not client.singleton and
      send_line(pmi::format_line("abort", {{"exitcode", std::to_string(exit_code)}}))) {
    // Until the server stops this process; a process manager that only closes
    // the connection lets it go.
    char buffer[256];
    while (true) {
      ssize_t got = read(client.fd, buffer, sizeof buffer);
      if (got == 0 or (got < 0 and errno != EINTR))
        break;
    }
  }
  _exit(exit_code);
}

template <typename Body> int guarded(Body body) noexcept
{
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return PMI_ERR_NOMEM;
  } catch (...) {
    return PMI_FAIL;
  }
}

} // namespace
} // namespace s4bxi::pmi_client

using namespace s4bxi::pmi_client;

extern "C" {

S4BXI_PMI_EXPORT int PMI_Init(int* spawned)
{
  return guarded([&] { return init(spawned); });
}

S4BXI_PMI_EXPORT int PMI_Initialized(int* initialized)
{
  if (initialized == nullptr)
    return PMI_ERR_INVALID_ARG;
  // Without the mutex: another thread may be waiting in a barrier.
  *initialized = client.initialized ? PMI_TRUE : PMI_FALSE;
  return PMI_SUCCESS;
}

S4BXI_PMI_EXPORT int PMI_Finalize(void)
{
  return guarded([] { return finalize(); });
}

S4BXI_PMI_EXPORT int PMI_Abort(int exit_code, const char error_msg[])
{
  abort_job(exit_code, error_msg);
}

S4BXI_PMI_EXPORT int PMI_Get_size(int* size)
{
  return local_int(&Client::size, size);
}

S4BXI_PMI_EXPORT int PMI_Get_rank(int* rank)
{
  return local_int(&Client::rank, rank);
}

S4BXI_PMI_EXPORT int PMI_Get_universe_size(int* size)
{
  return guarded([&] { return ask_once(client.universe_size, "get_universe_size", "universe_size", "size", size); });
}

S4BXI_PMI_EXPORT int PMI_Get_appnum(int* appnum)
{
  return guarded([&] { return ask_once(client.appnum, "get_appnum", "appnum", "appnum", appnum); });
}

S4BXI_PMI_EXPORT int PMI_Get_clique_size(int* size)
{
  std::lock_guard lock(client.exchange_mutex);
  if (not client.initialized)
    return PMI_ERR_INIT;
  if (size == nullptr)
    return PMI_ERR_INVALID_ARG;
  *size = static_cast<int>(client.clique.size());
  return PMI_SUCCESS;
}

S4BXI_PMI_EXPORT int PMI_Get_clique_ranks(int ranks[], int length)
{
  std::lock_guard lock(client.exchange_mutex);
  if (not client.initialized)
    return PMI_ERR_INIT;
  if (ranks == nullptr)
    return PMI_ERR_INVALID_ARG;
  if (length < static_cast<int>(client.clique.size()))
    return PMI_ERR_INVALID_LENGTH;
  std::copy(client.clique.begin(), client.clique.end(), ranks);
  return PMI_SUCCESS;
}

S4BXI_PMI_EXPORT int PMI_Barrier(void)
{
  return guarded([] { return barrier(); });
}

S4BXI_PMI_EXPORT int PMI_Get_id(char id_str[], int length)
{
  return guarded([&] { return my_name(id_str, length); });
}

S4BXI_PMI_EXPORT int PMI_Get_kvs_domain_id(char id_str[], int length)
{
  return guarded([&] { return my_name(id_str, length); });
}

S4BXI_PMI_EXPORT int PMI_Get_id_length_max(int* length)
{
  return local_int(&Client::kvs_name_max, length);
}

S4BXI_PMI_EXPORT int PMI_KVS_Get_my_name(char kvsname[], int length)
{
  return guarded([&] { return my_name(kvsname, length); });
}

S4BXI_PMI_EXPORT int PMI_KVS_Get_name_length_max(int* length)
{
  return local_int(&Client::kvs_name_max, length);
}

S4BXI_PMI_EXPORT int PMI_KVS_Get_key_length_max(int* length)
{
  return local_int(&Client::key_max, length);
}

S4BXI_PMI_EXPORT int PMI_KVS_Get_value_length_max(int* length)
{
  return local_int(&Client::value_max, length);
}

S4BXI_PMI_EXPORT int PMI_KVS_Put(const char kvsname[], const char key[], const char value[])
{
  return guarded([&] { return put(kvsname, key, value); });
}

S4BXI_PMI_EXPORT int PMI_KVS_Commit(const char kvsname[])
{
  return guarded([&] { return commit(kvsname); });
}

S4BXI_PMI_EXPORT int PMI_KVS_Get(const char kvsname[], const char key[], char value[], int length)
{
  return guarded([&] { return get(kvsname, key, value, length); });
}

S4BXI_PMI_EXPORT int PMI_Publish_name(const char service_name[], const char port[])
{
  (void)service_name;
  (void)port;
  return PMI_FAIL;
}

S4BXI_PMI_EXPORT int PMI_Unpublish_name(const char service_name[])
{
  (void)service_name;
  return PMI_FAIL;
}

S4BXI_PMI_EXPORT int PMI_Lookup_name(const char service_name[], char port[])
{
  (void)service_name;
  (void)port;
  return PMI_FAIL;
}

} // extern "C"
