#pragma once
// ssim-supervise --local-agent: the local launcher's supervisor for a whole run, started
// once (docs/launchers.md, "The local agent"), or for one batch of jobs (SSIM_AGENTS=0).
// ssim writes a job handoff (lib/state/agent_files.hpp) for each job to its standard
// input (a socket); it forks a keeper per job (keeper.hpp: the same
// guarantees as a supervisor of its own) and so spares each member an exec of a
// supervisor. When ssim closes the socket (its run ended, or it was killed) the agent
// lets the jobs it started finish, each recorded by its keeper, and exits.

namespace supervise {

int local_agent_main();

}  // namespace supervise
