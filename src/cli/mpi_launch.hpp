// `steptp generate --mpi` (DATASET.md §10): the only place that talks to MPI. Rank r of s runs shard r/s; ranks
// exchange nothing but a final barrier. Everything here compiles without MPI too (STEPTP_WITH_MPI unset): then
// mpi_available() is false and MpiSession's constructor throws.
#pragma once
#include <stdexcept>
#include <string>

namespace steptp::cli {

/// The message of a `--mpi` run in a build without MPI (a usage error, exit 2).
inline constexpr const char* kNoMpiMessage = "--mpi: built without MPI: rebuild with -DSTEPTP_WITH_MPI=ON";

/// True when this binary was built with -DSTEPTP_WITH_MPI=ON (CMake found an MPI implementation).
bool mpi_available();

/// One MPI session of the process: the constructor initialises MPI (MPI_Init_thread, MPI_THREAD_FUNNELED: only the
/// main thread calls MPI while generate's workers run), the destructor finalises it. At most one per process.
class MpiSession {
 public:
  /// Throws std::runtime_error(kNoMpiMessage) without MPI. MPI errors abort the job (MPI_ERRORS_ARE_FATAL).
  MpiSession();
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  int rank() const { return rank_; }  ///< this process's rank in MPI_COMM_WORLD, 0 <= rank < size
  int size() const { return size_; }  ///< number of ranks in MPI_COMM_WORLD

  /// Waits until every rank has called barrier(). The wait polls a non-blocking barrier every `poll_ms`
  /// milliseconds and sleeps in between, so a rank that finished early does not spin on a core next to ranks
  /// that are still measuring (a blocking MPI_Barrier busy-polls in OpenMPI).
  void barrier(int poll_ms = 20);

 private:
  int rank_ = 0, size_ = 1;
};

}  // namespace steptp::cli
