/**
 * n8n's Logger class, and the instance its engine logs through, for the n8n version under test:
 * in @n8n/backend-common from n8n 1.9x on, in n8n-core before. Both are looked up next to the
 * n8n-core the test runs on (an engine project maps n8n-core to engines/<version>/).
 */
import path from 'node:path';

interface LoggerLike {
	internalLogger: { silent: boolean };
}

type LoggerClass = (abstract new (...args: never[]) => unknown) & { prototype: unknown };

function fromCore<T>(request: string): T {
	const coreDirectory = path.dirname(require.resolve('n8n-core/package.json'));
	return require(require.resolve(request, { paths: [coreDirectory] })) as T;
}

export function n8nLoggerClass(): LoggerClass {
	const core = require('n8n-core') as { Logger?: LoggerClass };
	return core.Logger ?? fromCore<{ Logger: LoggerClass }>('@n8n/backend-common').Logger;
}

/** The logger n8n's engine logs through (a singleton in n8n's DI container). */
export function n8nLogger(): LoggerLike {
	const { Container } = fromCore<{ Container: { get(type: unknown): unknown } }>('@n8n/di');
	return Container.get(n8nLoggerClass()) as LoggerLike;
}
