#!/usr/bin/env node
// The `protean-permissions` command, as installed: the compiled entry point (a file that exists before the build, so
// installing the workspace links it without a warning).
import '../dist/bin.js';
