# Sourced by the benchmark scripts that run the same MPI program under SMPI
# (SimGrid's own MPI, libsimgrid-dev) as under s4bxi-run.
#
# smpi_fattree RUN TREE NODES XML HOSTS: writes XML, SimGrid's own fat-tree
# cluster with the parameters of s4bxi-run's fattree:TREE (the same switches and
# links, one per hop, split duplex, the same bandwidth and latency per hop, read
# from RUN --help-cfg), and HOSTS, a hostfile of its NODES nodes in order (rank
# r on node r on both sides). What differs: an SMPI host is a host on the tree,
# with no PCIe link (ours adds 250 ns and a 12.5 GB/s transfer cap at each end
# of a message) and no NIC (TX/RX engines and their delays, 64 B headers, 64 B
# of payload per 72 B on the wire, E2E's BXI ACKs).
smpi_fattree() {
  local run=$1 tree=$2 nodes=$3 xml=$4 hosts=$5 bandwidth latency speed
  bandwidth=$("$run" --help-cfg | awk '$1 == "s4bxi/bxi-bandwidth" { print $3 }')
  latency=$("$run" --help-cfg | awk '$1 == "s4bxi/bxi-latency" { print $3 }')
  speed=$("$run" --help-cfg | awk '$1 == "s4bxi/cpu-speed" { print $3 }')
  cat > "$xml" << XML
<?xml version="1.0"?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<!-- s4bxi-run's fattree:$tree for SMPI (tools/smpi-platform.sh says what differs) -->
<platform version="4.1">
  <cluster id="bxi" prefix="node" suffix="" radical="0-$((nodes - 1))" speed="${speed}f" bw="${bandwidth}Bps" lat="${latency}s"
           sharing_policy="SPLITDUPLEX" topology="FAT_TREE" topo_parameters="$tree"/>
</platform>
XML
  seq 0 $((nodes - 1)) | sed 's/^/node/' > "$hosts"
}

# SMPI's options for our model's network (CM02 max-min sharing without TCP's
# corrections: smpirun's default, network/model:SMPI, would multiply latencies
# and bandwidths by SMPI's calibration factors, an 8 B message's latency about
# twice the links'), our CPU speed as smpi/host-speed, and quiet logs.
smpi_options() {
  local run=$1 speed
  speed=$("$run" --help-cfg | awk '$1 == "s4bxi/cpu-speed" { print $3 }')
  echo "--cfg=smpi/host-speed:${speed}f --cfg=network/model:CM02 --cfg=network/crosstraffic:0 --cfg=network/TCP-gamma:0" \
    "--log=xbt_cfg.thres:warning --log=smpi_coll.thres:warning"
}
