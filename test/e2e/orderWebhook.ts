/**
 * The example webhook workflow (examples/webhook-order-confirmation.json): the orders posted to
 * it, and the send request the spec says each must become.
 */
export interface Order {
	order_id: string;
	customer: { name: string; phone: string };
}

export function orders(count: number): Order[] {
	return Array.from({ length: count }, (_, i) => ({ order_id: `ORD-${i + 1}`, customer: { name: `Customer ${i}`, phone: `+62 811 2233 44${i}0` } }));
}

export function expectedSendRequest(order: Order, i: number) {
	return {
		phone_number: `62811223344${i}0`,
		message: {
			type: 'template',
			template: {
				template_code_id: 'order_confirmed',
				payload: [
					{ position: 'body', parameters: [{ type: 'text', text: `Customer ${i}` }, { type: 'text', text: order.order_id }] },
					{
						position: 'button',
						parameters: [
							{ sub_type: 'url', index: '0', parameters: [{ type: 'text', text: order.order_id }] },
							{ sub_type: 'quick_reply', index: '1', parameters: [{ type: 'payload', payload: `cancel-${order.order_id}` }] },
						],
					},
				],
			},
		},
	};
}
