import { ConfigError, parseConfigText } from '../../server/config/load-config';

/** The ConfigError that reading `text` as gateway.yaml (with no environment) throws; fails when the text is valid. */
export function configErrorOf(text: string): ConfigError {
  try {
    parseConfigText(text, 'gateway.yaml', {});
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('Expected a configuration error.');
}
