#pragma once
// ssim-supervise --agent DIR [--node-env VAR,...] [--id TEMPLATE]: the per-node agent of a run inside an
// allocation (docs/launchers.md, "Agents"). ssim starts one on each node with a single
// launch (srun over the nodes) and hands it jobs through DIR (lib/state/agent_files.hpp);
// it forks a keeper per job, with the same guarantees as the local supervisor, and
// leaves when ssim says the run ended, or when ssim is gone and its jobs have ended.
// --node-env: variables of its node passed on to the jobs over ssim's environment;
// --id: the scheduler's id of its step (a template of its variables, from the launcher), recorded.

namespace supervise {

int agent_main(int argc, char** argv);

}  // namespace supervise
