// The BXI NIC of one node (thesis, chapter 4): per virtual network a TX engine
// that consumes a command queue and puts messages on the wire, and an RX engine
// that receives from the wire, matches, moves data to host memory and emits
// events and responses. Each engine is a SimGrid actor on the node's NIC host.
#pragma once

#include "command_queue.hpp"
#include "e2e.hpp"
#include "faults.hpp"
#include "message.hpp"
#include "nic_parameters.hpp"
#include "traffic.hpp"
#include "wire.hpp"
#include "../actor_sleep.hpp"
#include "../world.hpp"

#include <simgrid/s4u/Comm.hpp>

#include <array>
#include <deque>
#include <list>
#include <memory>
#include <span>

namespace s4bxi::nic {

struct NicStatistics {
  uint64_t messages_sent[kMessageKinds] = {}; // by Message::Kind, retransmissions included
  uint64_t payload_bytes_sent = 0;
  uint64_t wire_bytes_sent = 0;
  std::array<Traffic, trace::kMessageKinds> sent_by_kind{}; // indexed by trace::Kind
  uint64_t pcie_bytes_to_nic = 0;  // commands, PIO payloads, DMA reads
  uint64_t pcie_bytes_to_host = 0; // DMA writes of received data (events: RankStatistics::events_written)
  // End-to-end reliability (e2e.cpp) and faults (faults.hpp).
  uint64_t bxi_acks_sent = 0;       // also in messages_sent[Message::Kind::BxiAck]
  uint64_t retransmissions = 0;     // messages sent again after the E2E timeout
  uint64_t messages_lost = 0;       // messages this NIC sent that were lost to faults (dropped or on a failed link)
  uint64_t duplicates_received = 0; // messages received again (retransmissions of handled ones): acknowledged, not applied
  uint64_t messages_given_up = 0;   // messages E2E stopped retransmitting after s4bxi/e2e-max-retries
  uint64_t operations_failed = 0;   // operations of this NIC's initiators that ended with PTL_NI_UNDELIVERABLE
  // Operations whose payload was still to be read when their rank ended (a
  // triggered operation released after its process exited, a large Put it
  // did not wait for): never sent.
  uint64_t operations_dropped = 0;
  // Messages a TX engine's delay ran for in maestro (s4bxi/tx-in-maestro):
  // sent from there, or handed to the engine at the end of the delay.
  uint64_t sent_from_maestro = 0;
  uint64_t tx_sent_back = 0;
};

class Nic {
public:
  // Throws std::invalid_argument for a bad per-node option of the node.
  // `wire` carries the messages between the NICs; it outlives them.
  Nic(World& world, Wire& wire, const platform::Node& node, std::shared_ptr<Faults> faults = nullptr);
  Nic(const Nic&) = delete;
  Nic& operator=(const Nic&) = delete;

  void start();

  // Called by a rank's proxy actor, on the node's CPU host: models the CPU
  // writing the command (and a PIO payload) over PCIe, then queues it.
  void submit(std::unique_ptr<Message> message, uint64_t pio_bytes);

  // Models the CPU writing one command over PCIe, for commands that the NIC
  // keeps instead of sending (a triggered operation being registered).
  void write_command();

  // Queues a message that the NIC issues itself (a released triggered
  // operation): no PCIe command write, no slot of the host's command queue.
  // Never blocks, so it may be called from any actor.
  void inject(std::unique_ptr<Message> message);

  [[nodiscard]] const NicStatistics& statistics() const { return statistics_; }

  // Whether a command (after `pio_bytes` of PIO payload) that the rank of
  // `message` writes from `start` (its time: now, or later) is alone on the
  // CPU-to-NIC side of the node's PCIe link until it ends (lone_writes.cpp);
  // then each of its writes is a sleep to its exact end instead of a
  // communication (write_over_pcie).
  [[nodiscard]] bool writes_alone(const Message& message, uint64_t pio_bytes, double start);
  // The early answer (memory_work.hpp) is exact for a command (with
  // `pio_bytes` of payload written before it) when a message sent during
  // their PCIe writes cannot land here before the writes end (bounds set once
  // for all NICs by judge_early_answers).
  [[nodiscard]] bool early_answer_exact(uint64_t pio_bytes);
  friend void judge_early_answers(World& world);
  // How a PtlPut its only rank queues before `until` goes on (put_forecast.cpp),
  // seen at `now` with `earliest_write` the earliest time the NIC can write an
  // event not written yet (LandingBounds); until = 0 when it cannot be told.
  [[nodiscard]] ipc::PutForecast forecast_put(double now, double earliest_write);
  friend void configure_put_forecasts(World& world);
  // A new message (sent now, or kept for a trigger) takes its units of the
  // ranks whose memory it will touch (memory_work.cpp).
  void take_memory_work(Message& message);
  [[nodiscard]] const NicParameters& parameters() const { return params_; }
  // Whether a message this NIC sends can be lost (injected faults): a lost
  // message is sent again after later ones, which then land first.
  [[nodiscard]] bool may_lose_messages() const { return faults_ && faults_->can_lose(); }

private:
  // A command or message waiting for a TX engine; `holds_slot`: it took one
  // of the queue's slots (commands of the host, responses of the RX engines).
  struct TxItem {
    MessagePtr message;
    bool holds_slot = false;
    // Its TX delay has run, since `started`: the engine sends it at once
    // (it went to the engine after a delay run in maestro, tx_in_maestro).
    bool delay_ran = false;
    double started = 0;
  };

  void tx_loop(VirtualNetwork network, int lane);
  void rx_loop(VirtualNetwork network, int lane);
  // What the RX engine of `lane` does with a message it took at `taken`
  // (`delay_ran`: its delay ran before it was handed over): in its context,
  // or in maestro for a BXI ACK handled at its landing (wire.hpp).
  void handle_received(VirtualNetwork network, int lane, MessagePtr message, double taken, bool delay_ran);
  // Whether a message of `network` may be handled in maestro now, at the end
  // of its RX engine's delay (s4bxi/rx-in-maestro, wire.hpp): nothing of its
  // handling can block.
  [[nodiscard]] bool handles_in_maestro(VirtualNetwork network) const;
  // How long an RX engine of `network` takes before it handles a message.
  [[nodiscard]] double rx_delay_s(VirtualNetwork network) const
  {
    return network == VirtualNetwork::Request ? params_.rx_delay_s : params_.response_delay_s;
  }
  // `acknowledged`: the message whose handling sends this BXI ACK.
  // `delay_ran_since`: the TX delay began then and has run (else it runs now).
  void transmit(Message* message, const Message* acknowledged = nullptr, const double* delay_ran_since = nullptr);
  // A message that an idle TX engine would take now, its delay run by the
  // simulation itself and the message sent from maestro at its end
  // (s4bxi/tx-in-maestro), when nothing of that can block: no DMA read of its
  // payload, and it goes on the wire host to host (many messages on their
  // way: the engine's actor sends it through a mailbox).
  [[nodiscard]] bool tx_in_maestro(VirtualNetwork network, int lane, const Message& message);
  void start_tx_in_maestro(VirtualNetwork network, int lane, TxItem item);
  void end_tx_in_maestro(VirtualNetwork network, int lane);
  // What the TX engine's delay runs for in maestro, per lane.
  struct TxInMaestro {
    TxItem item;
    CallHandle call = 0;
    bool pending = false;
  };
  std::array<std::vector<TxInMaestro>, kVirtualNetworks> tx_in_maestro_;
  // Target side (portals/target.cpp): matching, data, events, response.
  void handle_request(MessagePtr message);
  // Initiator side (portals/initiator.cpp): reply data, SEND/ACK/REPLY events and counts.
  void handle_response(MessagePtr message);
  void complete_operation(MessagePtr message);
  // The MDs of an operation stop counting it as in flight (PtlMDRelease
  // answers PTL_IN_USE until then): the one it sends from at its SEND event,
  // the one its reply lands in at its end (portals/initiator.cpp).
  void release_put_buffer(InitiatorOp& op);
  void release_buffers(InitiatorOp& op);
  // A CPU-to-NIC write of `bytes` over PCIe from `start` (alone on its way:
  // maybe later than now), or from now (not alone).
  // (`caller`: the rank whose command it is, if any.)
  void write_over_pcie(bool alone, double start, uint64_t bytes, RankPortals* caller = nullptr);
  // Another CPU-to-NIC write begins now: counted and said if a command is
  // being written alone meanwhile (lone_writes.cpp).
  void note_lone_overlap();
  [[nodiscard]] double lone_write_end(double start, uint64_t bytes) const;
  // Tells the livelock watch how the operation ended.
  void note_outcome(const InitiatorOp& op, const Message& answer);

  // End-to-end reliability (e2e.cpp).
  void e2e_loop();
  void expire(E2eEntries::iterator head); // its deadline passed: send it again, or give up
  void arm_e2e_timer();                   // the timer follows the FIFO's head
  void log_e2e_statistics() const; // at the end of the run, s4bxi_e2e at verbose level
  // Puts a message on the wire: sequence number, fault injection, E2E entry.
  void send_on_wire(Message* message, uint64_t bytes_on_wire, const Message* acknowledged);
  // A message whose communication failed: a link of its route is off.
  void lost_on_the_way(Message& lost, uint64_t bytes_on_wire);
  // Whether a request is new (false: a duplicate, answered again here).
  bool accept_request(const Message& request);
  // Whether a response is new and for the initiator (false: a BXI ACK, or a
  // duplicate acknowledged again here).
  bool accept_response(const Message& response);
  void send_bxi_ack(const Message& message);
  // The receiver acknowledged message `seq` of this NIC to `peer`: returns
  // it if it was still kept.
  MessagePtr e2e_acknowledged(unsigned peer, uint64_t seq);
  void give_up(E2eEntries::iterator entry);
  void fail_operation(const Message& request);
  void quick_ack(const Message& request, ipc::FailKind fail, uint64_t mlength, uint64_t offset, bool overflow_list);
  // A request sent without E2E: the NIC is done with the initiator's buffer.
  void sent_unreliably(const Message& request);
  [[nodiscard]] int tx_lane(const Message& message) const
  {
    return static_cast<int>(message.dst_nid % static_cast<unsigned>(params_.tx_actors));
  }
  void respond(const Message& request, Message::Kind kind, ipc::FailKind fail, uint64_t mlength, uint64_t offset,
               bool portals_ack, bool overflow_list, PayloadBytes payload = {});
  // Writes `length` bytes at `offset` of `region` in the memory of `owner`
  // (a rank's process); sets `fail` to PTL_NI_SEGV if the memory is not there.
  void write_to_host(RankPortals& owner, const portals::MemoryRegion& region, uint64_t offset,
                     std::span<const unsigned char> bytes, uint64_t length, ipc::FailKind& fail);
  // The PCIe write of `bytes` to host memory that write_to_host made, as the
  // network model sees it: a communication nobody waits for, or nothing
  // (dma_writes.cpp).
  void load_host_link(uint64_t bytes);
  friend void configure_lone_dma_writes(World& world, const std::string& platform_spec);
  // The payload is out of the MD: SEND event and count, and the MD is free.
  void deliver_send_event(InitiatorOp& op, ipc::FailKind fail);
  // Counts (and warns of) a SEND event that did not come as its process
  // forecast it (put_forecast.cpp).
  void check_forecast(const InitiatorOp& op, const portals::PendingEvent* posted);
  // The NIC is about to touch a rank's memory (memory_work.cpp).
  void touch_memory(const RankPortals& rank);

  // A source is always received on the same lane, so that its messages are
  // handled in the order they were sent.
  RxLane& rx_lane(VirtualNetwork network, unsigned source)
  {
    auto& lanes = rx_lanes_[static_cast<int>(network)];
    return lanes[source % lanes.size()];
  }
  CommandQueue<TxItem>& queue(VirtualNetwork network) { return *queues_[static_cast<int>(network)]; }
  // Queues a message for its TX engine; `holds_slot`: it takes a slot of the
  // command queue (and may wait for one), else it is work the NIC creates.
  void enqueue(MessagePtr message, bool holds_slot);

  World& world_;
  Wire& wire_;
  platform::Node node_;
  NicParameters params_;
  std::shared_ptr<Faults> faults_;
  std::array<std::unique_ptr<CommandQueue<TxItem>>, kVirtualNetworks> queues_;
  std::array<std::vector<RxLane>, kVirtualNetworks> rx_lanes_{}; // what each RX engine receives (wire.hpp)
  LostHandler lost_on_the_way_; // lost_on_the_way, for the wire
  // The DMA reads of payloads in progress, kept here rather than on a TX
  // engine's stack: SimGrid kills the engines when the last rank has ended,
  // and a communication destroyed before its end on the way out prints a
  // warning and a backtrace.
  std::list<simgrid::s4u::CommPtr> dma_reads_;
  E2eState e2e_;
  NicStatistics statistics_;
  // The PCIe route from the node's CPU (memory_work.cpp), and the earliest a
  // message sent now can land here.
  double pcie_latency_s_ = 0;
  double pcie_narrowest_Bps_ = 0;
  double command_write_s_ = 0; // a command's, with nothing else on the bus
  double earliest_landing_s_ = 0;
  int ranks_on_node_ = 0; // each has at most one command on its way into the queue
  // Put forecasts (put_forecast.cpp): whether the network model makes a
  // lone PCIe write last exactly its latency and bytes at its bandwidth, and
  // the least RX and TX delays of any node (a Put's target and its ACK).
  bool forecasts_exact_ = false;
  // Whether the network model makes a PCIe write alone on its route last
  // exactly its latency plus its bytes at the route's narrowest bandwidth
  // (lone_writes.cpp), set with the route (memory_work.cpp).
  bool lone_writes_exact_ = false;
  double lone_until_ = 0; // the end of the latest command written alone
  bool dma_writes_in_network_ = true; // (dma_writes.cpp)
  double least_rx_s_ = 0;
  double least_tx_s_ = 0;
};

void judge_early_answers(World& world);
// Whether SimGrid's network model makes a transfer alone on `route` (a PCIe
// write, a message on the wire) last exactly `latency_s` plus its bytes at
// `narrowest_Bps` (lone_writes.cpp).
bool lone_writes_exact(const std::vector<simgrid::s4u::Link*>& route, double latency_s, double narrowest_Bps);
// Sets up Nic::forecast_put, after judge_early_answers.
void configure_put_forecasts(World& world);
// Sets World::landing up from the NICs' delays, the ranks' placement and the
// options (landing_bounds.hpp), once the NICs exist.
void configure_landing_bounds(World& world);
// Lets the wire carry messages alone on their route (s4bxi/lone-messages,
// wire.hpp) where the landing bounds know the least route latency; after
// configure_landing_bounds.
void configure_lone_messages(World& world);
// Leaves the NICs' DMA writes to host memory out of the network model where
// nothing else runs on their links (s4bxi/lone-dma-writes, dma_writes.cpp).
void configure_lone_dma_writes(World& world, const std::string& platform_spec);

} // namespace s4bxi::nic
