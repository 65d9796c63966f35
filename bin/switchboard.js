#!/usr/bin/env node
// The switchboard command line. Node 22.18+ / 24 runs the TypeScript sources directly.
import { main } from '../service/cli/main.ts';

process.exitCode = await main(process.argv.slice(2), process.env);
