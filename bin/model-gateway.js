#!/usr/bin/env node
// The `model-gateway` command. The sources are TypeScript, run through tsx's loader, so
// there is no build step between a clone and a running gateway.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../server/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
