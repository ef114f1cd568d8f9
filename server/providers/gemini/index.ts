export { createGeminiProvider } from './gemini-provider';
