"""Bills and GPU use read from files, pure: FOCUS exports, owned costs, DCGM, Prometheus and OpenCost in; rows and
problems out."""
