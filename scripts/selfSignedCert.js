'use strict';
/**
 * A self-signed certificate for 127.0.0.1 and localhost, made with openssl, for the benchmark's
 * HTTPS sandbox and its test. `node scripts/selfSignedCert.js DIR` writes DIR/key.pem and
 * DIR/cert.pem (kept when already there) and prints the certificate's path.
 */
const { execFileSync } = require('node:child_process');
const { existsSync, mkdirSync } = require('node:fs');
const path = require('node:path');

function selfSignedCert(dir) {
	const keyFile = path.join(dir, 'key.pem');
	const certFile = path.join(dir, 'cert.pem');
	if (!existsSync(keyFile) || !existsSync(certFile)) {
		mkdirSync(dir, { recursive: true });
		execFileSync(
			'openssl',
			['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost', '-keyout', keyFile, '-out', certFile],
			{ stdio: 'ignore' },
		);
	}
	return { keyFile, certFile };
}

if (require.main === module) console.log(selfSignedCert(process.argv[2] || '.bench-build/tls').certFile);

module.exports = { selfSignedCert };
