/**
 * n8n's Logger prints every node error to the console, expected ones included; a passing test
 * run prints only the runner's lines. Its messages are still logged (Logger.log runs, and the
 * secrets test reads them there): only their printing is off.
 */
import { n8nLogger } from './n8nLogger';

n8nLogger().internalLogger.silent = true;
