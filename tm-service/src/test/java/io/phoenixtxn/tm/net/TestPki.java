package io.phoenixtxn.tm.net;

import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

import java.io.OutputStream;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.util.Date;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A throwaway PKI made at test time (BouncyCastle builds the certificates, the JDK makes the keys and the stores):
 * CAs, certificates they sign for the TM server and its clients, and PKCS12 key and trust stores. Nothing of it is
 * committed; every run has fresh keys.
 */
final class TestPki {
    private static final AtomicLong SERIALS = new AtomicLong(System.currentTimeMillis());
    private static final long DAY_MS = 24L * 3600 * 1000;

    private TestPki() {
    }

    /** A key and its certificate chain, leaf first. */
    record Identity(PrivateKey key, X509Certificate... chain) {
        X509Certificate certificate() {
            return chain[0];
        }
    }

    static Identity certificateAuthority(String name) throws Exception {
        KeyPair pair = keyPair();
        X500Name subject = new X500Name("CN=" + name);
        X509v3CertificateBuilder builder = builder(subject, subject, pair)
                .addExtension(Extension.basicConstraints, true, new BasicConstraints(true))
                .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
        return new Identity(pair.getPrivate(), sign(builder, pair.getPrivate()));
    }

    /** A certificate for loopback (SAN localhost, 127.0.0.1), usable by a server and by a client. */
    static Identity issue(Identity ca, String name) throws Exception {
        KeyPair pair = keyPair();
        X500Name issuer = new X500Name(ca.certificate().getSubjectX500Principal().getName());
        X509v3CertificateBuilder builder = builder(issuer, new X500Name("CN=" + name), pair)
                .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
                .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature))
                .addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(
                        new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth}))
                .addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[] {
                        new GeneralName(GeneralName.dNSName, "localhost"),
                        new GeneralName(GeneralName.iPAddress, "127.0.0.1")}));
        return new Identity(pair.getPrivate(), sign(builder, ca.key()), ca.certificate());
    }

    static Path keyStore(Path dir, String file, Identity identity, String password) throws Exception {
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        store.setKeyEntry("key", identity.key(), password.toCharArray(), identity.chain());
        return write(dir.resolve(file), store, password);
    }

    static Path trustStore(Path dir, String file, String password, X509Certificate... trusted) throws Exception {
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        for (int i = 0; i < trusted.length; i++) {
            store.setCertificateEntry("trusted-" + i, trusted[i]);
        }
        return write(dir.resolve(file), store, password);
    }

    private static Path write(Path path, KeyStore store, String password) throws Exception {
        try (OutputStream out = Files.newOutputStream(path)) {
            store.store(out, password.toCharArray());
        }
        return path;
    }

    private static KeyPair keyPair() throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(new ECGenParameterSpec("secp256r1"));
        return generator.generateKeyPair();
    }

    private static X509v3CertificateBuilder builder(X500Name issuer, X500Name subject, KeyPair pair) {
        long now = System.currentTimeMillis();
        return new JcaX509v3CertificateBuilder(issuer, BigInteger.valueOf(SERIALS.incrementAndGet()),
                new Date(now - DAY_MS), new Date(now + DAY_MS), subject, pair.getPublic());
    }

    private static X509Certificate sign(X509v3CertificateBuilder builder, PrivateKey issuerKey) throws Exception {
        return new JcaX509CertificateConverter().getCertificate(
                builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(issuerKey)));
    }
}
