#include "recorder.hpp"

#include "json_text.hpp"

#include <cerrno>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/file.h>
#include <unistd.h>

namespace s4bxi::trace {

Recorder* active = nullptr;

namespace {

constexpr const char* kLockFile = ".s4bxi-trace.lock";
constexpr size_t kFlushBytes = 1 << 20; // both files are written in blocks of about this size
constexpr uint32_t kMaxLanes = 64;      // beyond, overlapping slices share the last lane

// Timelines of a node, in the order viewers show them (trace.json threads).
enum class TrackType : uint32_t { Rank = 1, Tx = 2, Rx = 3, E2e = 4, Wire = 5, Pcie = 6 };

uint32_t make_tid(TrackType type, uint32_t index, uint32_t lane)
{
  return (static_cast<uint32_t>(type) << 28) | ((index & 0xFFFFF) << 8) | (lane & 0xFF);
}

void append(std::string& out, const char* text)
{
  out.append(text);
}

template <class Integer> void append_integer(std::string& out, Integer value)
{
  char buffer[24];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  out.append(buffer, result.ptr);
}

// Seconds, shortest text that reads back as the same double.
void append_seconds(std::string& out, double seconds)
{
  char buffer[32];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, seconds);
  out.append(buffer, result.ptr);
}

int64_t picoseconds(double seconds)
{
  return std::llround(seconds * 1e12);
}

// Microseconds with six decimals, from picoseconds: integer arithmetic, so
// that a slice nested in another stays inside it after rounding.
void append_microseconds(std::string& out, int64_t ps)
{
  if (ps < 0)
    ps = 0;
  append_integer(out, ps / 1000000);
  char fraction[8];
  int64_t rest = ps % 1000000;
  for (int i = 5; i >= 0; --i) {
    fraction[i] = static_cast<char>('0' + rest % 10);
    rest /= 10;
  }
  out.push_back('.');
  out.append(fraction, 6);
}

// "what dst=N src=N wire_bytes=N", the parts that are set.
void append_detail(std::string& out, const Event& event)
{
  const size_t begin = out.size();
  auto separate = [&] {
    if (out.size() > begin)
      out.push_back(' ');
  };
  if (event.what != nullptr)
    append(out, event.what);
  if (event.dst >= 0) {
    separate();
    append(out, "dst=");
    append_integer(out, event.dst);
  }
  if (event.src >= 0) {
    separate();
    append(out, "src=");
    append_integer(out, event.src);
  }
  if (event.wire_bytes > 0) {
    separate();
    append(out, "wire_bytes=");
    append_integer(out, event.wire_bytes);
  }
  if (event.retry > 0) {
    separate();
    append(out, "retry=");
    append_integer(out, event.retry);
  }
  if (event.note != nullptr) {
    separate();
    append(out, event.note);
  }
}

const char* category(Kind kind)
{
  if (is_message(kind))
    return "message";
  if (is_pcie(kind))
    return "pcie";
  if (on_rank_track(kind))
    return "rank";
  return "nic";
}

std::string thread_name(uint32_t tid)
{
  const auto type = static_cast<TrackType>(tid >> 28);
  const uint32_t index = (tid >> 8) & 0xFFFFF;
  const uint32_t lane = tid & 0xFF;
  std::string name;
  switch (type) {
    case TrackType::Rank: return "rank " + std::to_string(index);
    case TrackType::Tx:
    case TrackType::Rx:
      name = std::string(type == TrackType::Tx ? "TX" : "RX") + " vn" + std::to_string(index & 0xF);
      if ((index >> 4) != 0)
        name += " engine " + std::to_string(index >> 4);
      return name;
    case TrackType::E2e: name = "E2E"; break;
    case TrackType::Wire: name = "wire out vn" + std::to_string(index); break;
    case TrackType::Pcie: name = "PCIe"; break;
  }
  if (lane > 0)
    name += " #" + std::to_string(lane + 1);
  return name;
}

} // namespace

std::unique_ptr<Recorder> Recorder::open(const std::string& directory, std::vector<std::string> node_names,
                                         std::string& error)
{
  std::error_code ec;
  std::filesystem::create_directories(directory, ec);
  if (ec) {
    error = "cannot create the trace directory '" + directory + "' (" + ec.message() + ")";
    return nullptr;
  }
  std::unique_ptr<Recorder> recorder(new Recorder());
  // Two jobs writing one directory would interleave events.csv and leave a
  // trace.json that is not JSON: the second one is refused before it
  // truncates anything. The kernel drops the lock however the run ends.
  const std::string lock_path = directory + "/" + kLockFile;
  recorder->lock_fd_ = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (recorder->lock_fd_ < 0) {
    error = "cannot write in the trace directory '" + directory + "' (" + std::strerror(errno) + ")";
    return nullptr;
  }
  if (flock(recorder->lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    error = errno == EWOULDBLOCK ? "the trace directory '" + directory +
                                       "' is in use by another s4bxi-run job; give each job its own --trace directory"
                                 : "cannot lock the trace directory '" + directory + "' (" + std::strerror(errno) + ")";
    return nullptr;
  }
  const std::string csv_path = directory + "/events.csv";
  const std::string json_path = directory + "/trace.json";
  recorder->csv_file_ = std::fopen(csv_path.c_str(), "w");
  if (recorder->csv_file_ == nullptr) {
    error = "cannot write the trace file '" + csv_path + "' (" + std::strerror(errno) + ")";
    return nullptr;
  }
  recorder->json_file_ = std::fopen(json_path.c_str(), "w");
  if (recorder->json_file_ == nullptr) {
    error = "cannot write the trace file '" + json_path + "' (" + std::strerror(errno) + ")";
    return nullptr;
  }
  recorder->node_names_ = std::move(node_names);
  recorder->csv_.reserve(kFlushBytes + 4096);
  recorder->json_.reserve(kFlushBytes + 4096);
  recorder->csv_ = "kind,node,rank,vn,bytes,start_s,end_s,actor,detail\n";
  recorder->json_ = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
  return recorder;
}

Recorder::~Recorder()
{
  close(0);
  if (lock_fd_ >= 0)
    ::close(lock_fd_);
}

void Recorder::set_processes(const std::vector<pid_t>& os_pids)
{
  ranks_by_process_.clear();
  for (size_t rank = 0; rank < os_pids.size(); ++rank)
    ranks_by_process_[os_pids[rank]] = static_cast<int>(rank);
}

int Recorder::rank_of(pid_t os_pid) const
{
  auto it = ranks_by_process_.find(os_pid);
  return it == ranks_by_process_.end() ? -1 : it->second;
}

void Recorder::begin_call(const Event& call)
{
  const auto rank = static_cast<size_t>(call.rank);
  if (calls_.size() <= rank)
    calls_.resize(rank + 1);
  calls_[rank].open = true;
  calls_[rank].call = call;
}

void Recorder::end_call(unsigned rank, double end)
{
  if (rank >= calls_.size() || not calls_[rank].open)
    return;
  auto& state = calls_[rank];
  state.open = false;
  state.call.end = end;
  write(state.call);
  for (const Event& held : state.held)
    write(held);
  state.held.clear();
}

void Recorder::record(const Event& event)
{
  if (on_rank_track(event.kind) && event.rank >= 0 && static_cast<size_t>(event.rank) < calls_.size() &&
      calls_[event.rank].open) {
    calls_[event.rank].held.push_back(event);
    return;
  }
  write(event);
}

uint32_t Recorder::lane(unsigned node, uint32_t group, double start, double end)
{
  auto& ends = lanes_[(static_cast<uint64_t>(node) << 32) | group];
  uint32_t chosen = kMaxLanes;
  for (uint32_t i = 0; i < ends.size(); ++i)
    if (ends[i] <= start) {
      chosen = i;
      break;
    }
  if (chosen == kMaxLanes) {
    if (ends.size() < kMaxLanes) {
      chosen = static_cast<uint32_t>(ends.size());
      ends.push_back(end);
      return chosen;
    }
    chosen = kMaxLanes - 1;
  }
  ends[chosen] = std::max(ends[chosen], end);
  return chosen;
}

uint32_t Recorder::track_of(const Event& event, std::string& actor)
{
  const uint32_t vn = event.vn < 0 ? 0 : static_cast<uint32_t>(event.vn);
  if (on_rank_track(event.kind)) {
    append(actor, "rank");
    append_integer(actor, event.rank);
    return make_tid(TrackType::Rank, static_cast<uint32_t>(event.rank < 0 ? 0 : event.rank), 0);
  }
  if (event.kind == Kind::Tx || event.kind == Kind::Rx) {
    const bool tx = event.kind == Kind::Tx;
    append(actor, tx ? "tx" : "rx");
    append_integer(actor, vn);
    if (event.actor > 0) {
      actor.push_back('.');
      append_integer(actor, event.actor);
    }
    return make_tid(tx ? TrackType::Tx : TrackType::Rx, vn | (static_cast<uint32_t>(event.actor) << 4), 0);
  }
  // Messages in flight, the messages E2E keeps and PCIe transfers overlap:
  // each gets the first lane that is free at its start.
  if (event.kind == Kind::E2e) {
    append(actor, "e2e");
    const uint32_t group = make_tid(TrackType::E2e, 0, 0);
    return group | lane(event.node, group, event.start, event.end);
  }
  if (is_message(event.kind)) {
    append(actor, "wire");
    append_integer(actor, vn);
    const uint32_t group = make_tid(TrackType::Wire, vn, 0);
    return group | lane(event.node, group, event.start, event.end);
  }
  append(actor, "pcie");
  const uint32_t group = make_tid(TrackType::Pcie, 0, 0);
  return group | lane(event.node, group, event.start, event.end);
}

void Recorder::write(const Event& event)
{
  if (csv_file_ == nullptr)
    return;
  actor_.clear();
  const uint32_t tid = track_of(event, actor_);
  write_csv(event, actor_);
  write_json(event, tid);
  tracks_.insert((static_cast<uint64_t>(event.node) << 32) | tid);
  events_++;
  if (csv_.size() >= kFlushBytes || json_.size() >= kFlushBytes)
    flush();
}

void Recorder::write_csv(const Event& event, const std::string& actor)
{
  std::string& out = csv_;
  append(out, name(event.kind));
  out.push_back(',');
  append_integer(out, event.node);
  out.push_back(',');
  if (event.rank >= 0)
    append_integer(out, event.rank);
  out.push_back(',');
  if (event.vn >= 0)
    append_integer(out, event.vn);
  out.push_back(',');
  append_integer(out, event.bytes);
  out.push_back(',');
  append_seconds(out, event.start);
  out.push_back(',');
  append_seconds(out, event.end);
  out.push_back(',');
  out.append(actor);
  out.push_back(',');
  append_detail(out, event);
  out.push_back('\n');
}

void Recorder::write_json(const Event& event, uint32_t tid)
{
  std::string& out = json_;
  if (not first_json_event_)
    out.append(",\n");
  first_json_event_ = false;
  const bool named_by_what =
      event.what != nullptr && (event.kind == Kind::Call || event.kind == Kind::Wait || event.kind == Kind::Poll ||
                                event.kind == Kind::Tx || event.kind == Kind::Rx || event.kind == Kind::E2e);
  append(out, "{\"name\":\"");
  append(out, named_by_what ? event.what : name(event.kind));
  append(out, "\",\"cat\":\"");
  append(out, category(event.kind));
  append(out, "\",\"ph\":\"X\",\"pid\":");
  append_integer(out, event.node + 1); // some viewers treat pid 0 specially
  append(out, ",\"tid\":");
  append_integer(out, tid);
  append(out, ",\"ts\":");
  const int64_t start = picoseconds(event.start);
  append_microseconds(out, start);
  append(out, ",\"dur\":");
  append_microseconds(out, picoseconds(event.end) - start);
  append(out, ",\"args\":{\"kind\":\"");
  append(out, name(event.kind));
  out.push_back('"');
  // What is not set is left out: the file is most of a trace's cost.
  if (event.bytes > 0) {
    append(out, ",\"bytes\":");
    append_integer(out, event.bytes);
  }
  if (event.rank >= 0) {
    append(out, ",\"rank\":");
    append_integer(out, event.rank);
  }
  if (event.vn >= 0) {
    append(out, ",\"vn\":");
    append_integer(out, event.vn);
  }
  const size_t before_detail = out.size();
  append(out, ",\"detail\":\"");
  const size_t detail_start = out.size();
  append_detail(out, event);
  if (out.size() == detail_start)
    out.resize(before_detail);
  else
    out.push_back('"');
  append(out, "}}");
}

void Recorder::flush()
{
  if (csv_file_ != nullptr && not csv_.empty())
    std::fwrite(csv_.data(), 1, csv_.size(), csv_file_);
  if (json_file_ != nullptr && not json_.empty())
    std::fwrite(json_.data(), 1, json_.size(), json_file_);
  csv_.clear();
  json_.clear();
}

void Recorder::close(double now)
{
  if (csv_file_ == nullptr)
    return;
  // Calls that never ended: the run stopped in them (a deadlock, a failure).
  for (unsigned rank = 0; rank < calls_.size(); ++rank)
    end_call(rank, std::max(now, calls_[rank].call.start));
  std::string& out = json_;
  auto metadata = [&](const char* what, unsigned node, const uint32_t* tid, const char* key,
                      const std::string* text, int64_t number) {
    if (not first_json_event_)
      out.append(",\n");
    first_json_event_ = false;
    append(out, "{\"name\":\"");
    append(out, what);
    append(out, "\",\"ph\":\"M\",\"pid\":");
    append_integer(out, node + 1);
    if (tid != nullptr) {
      append(out, ",\"tid\":");
      append_integer(out, *tid);
    }
    append(out, ",\"args\":{\"");
    append(out, key);
    append(out, "\":");
    if (text != nullptr)
      append_json_string(out, *text);
    else
      append_integer(out, number);
    append(out, "}}");
  };
  for (unsigned node = 0; node < node_names_.size(); ++node) {
    // The host's name, and the node's index (the CSV's and the report's) when the name does not say it.
    std::string process = node_names_[node];
    if (process != "node" + std::to_string(node))
      process += " (node " + std::to_string(node) + ")";
    metadata("process_name", node, nullptr, "name", &process, 0);
    metadata("process_sort_index", node, nullptr, "sort_index", nullptr, node);
  }
  std::vector<uint64_t> tracks(tracks_.begin(), tracks_.end());
  std::sort(tracks.begin(), tracks.end());
  for (uint64_t track : tracks) {
    const auto node = static_cast<unsigned>(track >> 32);
    const auto tid = static_cast<uint32_t>(track & 0xFFFFFFFF);
    const std::string thread = thread_name(tid);
    metadata("thread_name", node, &tid, "name", &thread, 0);
    metadata("thread_sort_index", node, &tid, "sort_index", nullptr, tid);
  }
  out.append("\n]}\n");
  flush();
  std::fclose(csv_file_);
  std::fclose(json_file_);
  csv_file_ = nullptr;
  json_file_ = nullptr;
}

void finish(double now)
{
  if (active != nullptr)
    active->close(now);
}

} // namespace s4bxi::trace
