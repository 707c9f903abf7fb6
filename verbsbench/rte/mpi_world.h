// MPI as verbsbench's rendezvous: MPI_Init and MPI_Finalize owned by one
// object (made only when --rte resolved to mpi, so a plain run never touches
// MPI), and the control channel between two ranks, JSON messages over MPI
// point-to-point. <mpi.h> stays in the .cc.
#ifndef VERBSBENCH_RTE_MPI_WORLD_H_
#define VERBSBENCH_RTE_MPI_WORLD_H_

#include <memory>
#include <string>

#include "verbsbench/internal/channel.h"

namespace verbsbench::rte {

// Open MPI's MCA parameters set before MPI_Init unless the environment (or
// mpirun --mca, which exports them) already sets them: the control messages
// go over shared memory or TCP, never through UCX, openib or libfabric onto
// the RDMA device being measured.
struct McaDefault {
  const char* variable;
  const char* value;
};
inline constexpr McaDefault kMcaDefaults[] = {
    {"OMPI_MCA_pml", "ob1"},
    {"OMPI_MCA_btl", "self,vader,tcp"},
    {"OMPI_MCA_osc", "^ucx"},
};

class MpiWorld {
 public:
  // MPI_Init (unless MPI is already initialised, which the caller then
  // finalises). Throws std::runtime_error.
  MpiWorld();
  // MPI_Finalize, except while an exception unwinds: Open MPI's finalize
  // waits for every rank, and a failed rank's peers may never get there
  // (the launcher ends them when this process exits).
  ~MpiWorld();
  MpiWorld(const MpiWorld&) = delete;
  MpiWorld& operator=(const MpiWorld&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  // The first line of MPI_Get_library_version.
  const std::string& library() const { return library_; }

  // The channel to `remote` (another rank). Send returns once the remote
  // has matched the message (a synchronous send: nothing is left for MPI
  // to progress while the caller polls its RDMA device); Recv polls with a
  // back-off, so a waiting rank sleeps rather than spins.
  std::unique_ptr<internal::Channel> ChannelTo(int remote) const;

 private:
  struct Comm;
  std::unique_ptr<Comm> comm_;
  bool owns_init_ = false;
  int rank_ = 0;
  int size_ = 1;
  std::string library_;
};

}  // namespace verbsbench::rte

#endif  // VERBSBENCH_RTE_MPI_WORLD_H_
