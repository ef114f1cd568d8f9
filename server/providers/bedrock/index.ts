export { createBedrockProvider } from './bedrock-provider';
