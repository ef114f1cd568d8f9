export { createGeminiProvider, createGeminiAdapter } from './gemini-provider';
