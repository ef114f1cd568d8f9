import { ConfigError, parseConfigText, type ConfigProblem } from '../../server/config/load-config';

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

/** The problems `configErrorOf(text)` lists, each with its path and line. */
export function problemsOf(text: string): ConfigProblem[] {
  return configErrorOf(text).problems;
}
