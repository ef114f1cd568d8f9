export { createAzureProvider, type AzureProviderDependencies } from './azure-provider';
