'use strict';
/**
 * Loaded into n8n's processes by the Send Once benchmark (NODE_OPTIONS=--require): counts what n8n
 * writes to its processed_data table, the record Send Once keeps, and writes the counts every
 * 200 ms to TM_STORE_STATS.<pid>, with the calls nodes make to n8n's store and the time they take.
 * A record of md5 hashes is 27 bytes of JSON a value, plus 27.
 */
const fs = require('node:fs');
const Module = require('node:module');

const file = `${process.env.TM_STORE_STATS}.${process.pid}`;
const stats = { writes: 0, values: 0, bytes: 0, calls: 0, callMs: 0 };
const load = Module._load;
Module._load = function (request, ...rest) {
	const exports = load.call(this, request, ...rest);
	if (request === '@n8n/db' && exports.ProcessedDataRepository && !exports.ProcessedDataRepository.__counted) {
		const repository = exports.ProcessedDataRepository;
		repository.__counted = true;
		const count = (value) => {
			const values = Array.isArray(value?.data) ? value.data.length : 1;
			stats.writes++;
			stats.values += values;
			stats.bytes += 27 * values + 27;
		};
		const { insert, update } = repository.prototype;
		repository.prototype.insert = function (entity, ...more) {
			count(entity?.value);
			return insert.call(this, entity, ...more);
		};
		repository.prototype.update = function (criteria, entity, ...more) {
			count(entity?.value);
			return update.call(this, criteria, entity, ...more);
		};
		// Written whole, then renamed: a reader never meets half a file.
		setInterval(() => {
			fs.writeFileSync(`${file}.tmp`, JSON.stringify(stats));
			fs.renameSync(`${file}.tmp`, file);
		}, 200).unref();
	}
	if (exports && typeof exports.DeduplicationHelper === 'function' && !exports.DeduplicationHelper.__timed) {
		const helper = exports.DeduplicationHelper;
		helper.__timed = true;
		for (const method of ['checkProcessedAndRecord', 'removeProcessed', 'getProcessedDataCount']) {
			const original = helper.prototype[method];
			helper.prototype[method] = async function (...args) {
				const started = process.hrtime.bigint();
				try {
					return await original.apply(this, args);
				} finally {
					stats.calls++;
					stats.callMs += Number(process.hrtime.bigint() - started) / 1e6;
				}
			};
		}
	}
	return exports;
};
