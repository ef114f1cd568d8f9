export { createOpenAiProvider } from './openai-provider';
export { mapOpenAiFinishReason } from './map-openai-finish-reason';
