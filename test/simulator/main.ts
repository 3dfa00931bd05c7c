// ZCode simulator entry (placeholder until the simulator lands).
process.stderr.write("zcode simulator: not implemented yet\n");
process.exit(1);
