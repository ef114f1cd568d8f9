export { createMockProvider } from './mock-provider';
