export { loadConfig, ConfigError, BUNDLED_RELEASE, type Config } from './config.js';
