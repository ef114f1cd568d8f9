export { createAnthropicProvider, createAnthropicAdapter } from './anthropic-provider';
export { ANTHROPIC_VERSION, type AnthropicCall, type AnthropicTransport } from './anthropic-transport';
