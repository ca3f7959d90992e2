// What a generated project's src/main.ts loads before its controller starts (the default leader-election layout,
// without webhooks): the packages its modules import at run time. imports.mjs loads it as files and bundled.
import 'reflect-metadata';
export * as client from '@protean/client';
export * as coordinator from '@protean/coordinator';
export * as core from '@protean/core';
export * as leaderElection from '@protean/leader-election';
export * as metrics from '@protean/metrics';
export * as queue from '@protean/queue';
export * as transport from '@protean/transport';
export * as watchManager from '@protean/watch-manager';
export * as inversify from 'inversify';
