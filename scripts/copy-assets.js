// Copies the SQL migrations next to the compiled code (tsc copies only .ts output).
import { cpSync } from 'node:fs';

cpSync('src/store/migrations', 'dist/store/migrations', { recursive: true });
