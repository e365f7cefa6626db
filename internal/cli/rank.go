package cli

import (
	"fmt"
	"os"
	"strconv"

	"github.com/spf13/cobra"
)

// rankEnv are the environment variables launchers set, in the order they
// are looked at: the rank and the number of ranks (empty: none; the
// number then comes from --ranks).
var rankEnv = [][2]string{
	{"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"}, // Open MPI's mpirun
	{"PMI_RANK", "PMI_SIZE"},                         // MPICH, Intel MPI
	{"SLURM_PROCID", "SLURM_NTASKS"},                 // srun
	{"JOB_COMPLETION_INDEX", ""},                     // Kubernetes indexed job
}

// rankOf is this process's place among the load generators of one run:
// --rank and --ranks where given, else a launcher's environment (rankEnv),
// else 0 of 1. from says where it came from, for results.json.
func rankOf(cmd *cobra.Command, flagRank, flagRanks int) (rank, ranks int, from string, err error) {
	set := cmd.Flags().Changed
	rank, ranks = -1, -1
	if set("rank") {
		rank, from = flagRank, "--rank"
	}
	if set("ranks") {
		ranks = flagRanks
	}
	for _, e := range rankEnv {
		if rank >= 0 {
			break
		}
		v, ok := os.LookupEnv(e[0])
		if !ok {
			continue
		}
		if rank, err = envInt(e[0], v); err != nil {
			return 0, 0, "", err
		}
		from = e[0]
		if e[1] != "" && ranks < 0 {
			n, ok := os.LookupEnv(e[1])
			if !ok {
				return 0, 0, "", fmt.Errorf("%s is set but %s is not: cannot tell how many ranks there are", e[0], e[1])
			}
			if ranks, err = envInt(e[1], n); err != nil {
				return 0, 0, "", err
			}
		}
	}
	switch {
	case rank < 0 && ranks < 0:
		return 0, 1, "", nil
	case rank < 0:
		return 0, 0, "", fmt.Errorf("--ranks %d without --rank (or a launcher's rank variable: %s)", ranks, envNames())
	case ranks < 0:
		return 0, 0, "", fmt.Errorf("rank %d from %s, but the number of ranks is unknown: give --ranks", rank, from)
	case ranks < 1 || rank >= ranks:
		return 0, 0, "", fmt.Errorf("rank %d of %d (from %s): want 0 <= rank < ranks", rank, ranks, from)
	}
	return rank, ranks, from, nil
}

func envInt(name, v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%s=%q: want a non-negative integer", name, v)
	}
	return n, nil
}

func envNames() string {
	s := ""
	for i, e := range rankEnv {
		if i > 0 {
			s += ", "
		}
		s += e[0]
	}
	return s
}
