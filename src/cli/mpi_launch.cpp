#include "cli/mpi_launch.hpp"

#include <chrono>
#include <thread>

#ifdef STEPTP_WITH_MPI
// The C API only: without these, OpenMPI's (and MPICH's) mpi.h pulls in the deprecated C++ bindings, which need
// libmpi_cxx at link time.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#endif

namespace steptp::cli {

#ifdef STEPTP_WITH_MPI

bool mpi_available() { return true; }

MpiSession::MpiSession() {
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

MpiSession::~MpiSession() { MPI_Finalize(); }

void MpiSession::barrier(int poll_ms) {
  MPI_Request req;
  MPI_Ibarrier(MPI_COMM_WORLD, &req);
  for (int done = 0;;) {
    MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    if (done) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(poll_ms));
  }
}

#else

bool mpi_available() { return false; }

MpiSession::MpiSession() { throw std::runtime_error(kNoMpiMessage); }
MpiSession::~MpiSession() = default;
void MpiSession::barrier(int) {}

#endif

}  // namespace steptp::cli
