#!/usr/bin/env node
import { boundHeapGrowth, boundYoungGeneration } from './memory.ts';

// The only entry point (`npm start`, `bin/pigeonhole`, the Docker image). The heap is bounded
// first (server/memory.ts), and the server is loaded after: a static import graph is parsed in
// full before any of its code runs, and parsing it alone grew the young generation to its largest.
boundHeapGrowth();
boundYoungGeneration();
await import('./serve.ts');
