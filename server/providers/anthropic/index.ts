export { createAnthropicProvider, ANTHROPIC_VERSION } from './anthropic-provider';
