/**
 * An in-memory stand-in for the store n8n's server gives nodes (packages/cli's DeduplicationHelper,
 * in its database), installed into the engine's DataDeduplicationService as n8n's server does at
 * start-up. It keeps n8n's semantics for mode 'entries': one record per workflow (and node, for
 * scope 'node') holding md5 hashes of the values, the oldest dropped beyond maxEntries, a read then
 * a rewrite of the whole record on every call, with no lock. It counts the calls and what a
 * rewrite would write.
 */
import { createHash } from 'node:crypto';
import { DataDeduplicationService } from 'n8n-core';
import type { DeduplicationItemTypes, DeduplicationScope, ICheckProcessedContextData, ICheckProcessedOptions, IDataDeduplicator } from 'n8n-workflow';

export interface StoreStats {
	calls: number;
	/** Bytes of the records written, as n8n's repository would write them (JSON). */
	bytesWritten: number;
}

class MemoryDeduplicator implements IDataDeduplicator {
	readonly records = new Map<string, string[]>();

	readonly stats: StoreStats = { calls: 0, bytesWritten: 0 };

	/** Milliseconds between reading a record and writing it back (n8n's window without a lock). */
	latencyMs = 0;

	async checkProcessedAndRecord(items: DeduplicationItemTypes[], scope: DeduplicationScope, context: ICheckProcessedContextData, options: ICheckProcessedOptions) {
		const id = recordId(scope, context);
		const existing = this.records.get(id);
		const data = existing ? [...existing] : [];
		await this.pause();
		const seen = new Set(data);
		const result = { new: [] as DeduplicationItemTypes[], processed: [] as DeduplicationItemTypes[] };
		for (const item of items) {
			const hash = md5(item);
			if (existing && seen.has(hash)) result.processed.push(item);
			else {
				result.new.push(item);
				data.push(hash);
			}
		}
		this.write(id, data, options);
		return result;
	}

	async removeProcessed(items: DeduplicationItemTypes[], scope: DeduplicationScope, context: ICheckProcessedContextData, options: ICheckProcessedOptions) {
		const id = recordId(scope, context);
		const existing = this.records.get(id);
		if (!existing) return;
		const data = [...existing];
		await this.pause();
		for (const item of items) {
			const index = data.indexOf(md5(item));
			if (index !== -1) data.splice(index, 1);
		}
		this.write(id, data, options);
	}

	async clearAllProcessedItems(scope: DeduplicationScope, context: ICheckProcessedContextData) {
		this.stats.calls++;
		this.records.delete(recordId(scope, context));
	}

	async getProcessedDataCount(scope: DeduplicationScope, context: ICheckProcessedContextData) {
		this.stats.calls++;
		return this.records.get(recordId(scope, context))?.length ?? 0;
	}

	private async pause() {
		this.stats.calls++;
		if (this.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, this.latencyMs));
	}

	private write(id: string, data: string[], options: ICheckProcessedOptions) {
		if (options.maxEntries) data.splice(0, data.length - options.maxEntries);
		this.records.set(id, data);
		this.stats.bytesWritten += JSON.stringify({ mode: options.mode, data }).length;
	}
}

function recordId(scope: DeduplicationScope, context: ICheckProcessedContextData): string {
	if (!context.workflow.id) throw new Error('n8n asserts a workflow id');
	return `${context.workflow.id}/${scope === 'node' ? `n:${context.node?.id}` : ''}`;
}

function md5(value: DeduplicationItemTypes): string {
	return createHash('md5').update(value.toString()).digest('base64');
}

let store: MemoryDeduplicator | undefined;

/** The store the engine's nodes use in this test file, installed on first use; emptied by reset(). */
export function deduplicationStore(): MemoryDeduplicator {
	if (!store) {
		store = new MemoryDeduplicator();
		void DataDeduplicationService.init(store);
	}
	return store;
}

export function resetDeduplicationStore(): void {
	const current = deduplicationStore();
	current.records.clear();
	current.stats.calls = 0;
	current.stats.bytesWritten = 0;
	current.latencyMs = 0;
}
