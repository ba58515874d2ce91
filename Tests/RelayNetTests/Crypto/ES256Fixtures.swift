/// Test vectors made by implementations other than ours, committed so the tests need neither.
///
/// `python*` came from Python's `cryptography` package (version 50), with this script:
///
/// ```python
/// import base64, json
/// from cryptography.hazmat.primitives.asymmetric import ec
/// from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
/// from cryptography.hazmat.primitives import hashes, serialization
///
/// def b64(b): return base64.urlsafe_b64encode(b).rstrip(b"=").decode()
/// key = ec.generate_private_key(ec.SECP256R1())
/// priv = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()
/// pub = key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()
/// header = json.dumps({"alg": "ES256", "kid": "PYKEY00001"}, separators=(",", ":")).encode()
/// claims = json.dumps({"iss": "PYTEAM0001", "iat": 1767225600}, separators=(",", ":")).encode()
/// signing_input = b64(header) + "." + b64(claims)
/// r, s = decode_dss_signature(key.sign(signing_input.encode(), ec.ECDSA(hashes.SHA256())))
/// jwt = signing_input + "." + b64(r.to_bytes(32, "big") + s.to_bytes(32, "big"))
/// print(priv); print(pub); print(jwt)
/// ```
///
/// `cli*` came from the OpenSSL 3.0 command line:
///
/// ```sh
/// openssl ecparam -genkey -name prime256v1 | openssl pkcs8 -topk8 -nocrypt > cli.p8
/// openssl pkey -in cli.p8 -pubout > cli.pub
/// printf 'signed by the openssl command line' > msg.txt
/// openssl dgst -sha256 -sign cli.p8 msg.txt > sig.der    # DER, shown here as hex
/// openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-384 > p384.p8
/// openssl pkcs8 -topk8 -v2 aes-256-cbc -passout pass:secret -in cli.p8 > encrypted.p8
/// ```
///
/// These are throwaway test keys; they protect nothing.
enum ES256Fixtures {
    /// The private key Python signed `pythonJWT` with (PKCS#8, like Apple's `.p8`).
    static let pythonPrivateKeyPEM = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgHIb396Mr6vpUFEvQ
        D1Cd6xxcvTYjCzcTbl+d1PQRC9OhRANCAASoG580ZXLrjTNOhuUDg8wme2G2+Vhf
        N50AObPBlGTL9Xlk9CBglUTEw2Cw57y55H8rrKV4a55JHr6FiTklgQbT
        -----END PRIVATE KEY-----
        """

    /// Its public key (SubjectPublicKeyInfo).
    static let pythonPublicKeyPEM = """
        -----BEGIN PUBLIC KEY-----
        MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEqBufNGVy640zToblA4PMJnthtvlY
        XzedADmzwZRky/V5ZPQgYJVExMNgsOe8ueR/K6yleGueSR6+hYk5JYEG0w==
        -----END PUBLIC KEY-----
        """

    /// A provider token signed by Python: kid `PYKEY00001`, iss `PYTEAM0001`, iat 1767225600.
    static let pythonJWT =
        "eyJhbGciOiJFUzI1NiIsImtpZCI6IlBZS0VZMDAwMDEifQ.eyJpc3MiOiJQWVRFQU0wMDAxIiwiaWF0IjoxNzY3MjI1NjAwfQ.5QPy1K9D28OFapciPlwGGsfK2krxFKS39RQrNHd0dZuIorRhnKURo8KAdPv-yiOqrJHa3hPd0ZG6t8dMdAw13Q"

    /// The private key the OpenSSL command line signed `cliMessage` with.
    static let cliPrivateKeyPEM = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgJctiyo/NT96fbJoh
        4tmaW+cfU5F5Npg4MQABRwE5tkWhRANCAAQOWfursfWr7m4qji+D9eJWCtrHV5ZR
        jTQrWaJcmglghwzryngU/W7axUlz38AD2TnqULuophuHmSGOBSlA8MW4
        -----END PRIVATE KEY-----
        """

    /// Its public key.
    static let cliPublicKeyPEM = """
        -----BEGIN PUBLIC KEY-----
        MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEDln7q7H1q+5uKo4vg/XiVgrax1eW
        UY00K1miXJoJYIcM68p4FP1u2sVJc9/AA9k56lC7qKYbh5khjgUpQPDFuA==
        -----END PUBLIC KEY-----
        """

    /// The message the command line signed.
    static let cliMessage = "signed by the openssl command line"

    /// `openssl dgst -sha256 -sign` output (DER ECDSA-Sig-Value), hex.
    static let cliSignatureDERHex =
        "3046022100867c6aaf456d4adf9d2f4d01d44a98ffb42e2c9e9544ad49ea4e4ffe831ab2aa022100e8b1864c0abcbfe71deab27491f2f835ec2035671150f3a5d0e094e1ddd25a01"

    /// A P-384 key, which ES256 must refuse.
    static let p384PrivateKeyPEM = """
        -----BEGIN PRIVATE KEY-----
        MIG2AgEAMBAGByqGSM49AgEGBSuBBAAiBIGeMIGbAgEBBDCMfQUXpxocfvYjEqqT
        UzpU+kM7guADtKh8VD1iH3o2nx1hmJvRnDsMImiIknBKxPOhZANiAARTVQlounTv
        Bg8n1xfdfgpRXEig/cryhsPvtLEwrNWJT4SeJAH8R1zgbI5Bon2I7Ah75hxaI6s5
        tOLAbAaIdHI4KrI2kFtx+VzhFa5J3307z9R8WaJYirLH4mKhH13fMDA=
        -----END PRIVATE KEY-----
        """

    /// `cliPrivateKeyPEM` encrypted with a password, which loading must refuse without prompting.
    static let encryptedPrivateKeyPEM = """
        -----BEGIN ENCRYPTED PRIVATE KEY-----
        MIHsMFcGCSqGSIb3DQEFDTBKMCkGCSqGSIb3DQEFDDAcBAi03+HW/qVwowICCAAw
        DAYIKoZIhvcNAgkFADAdBglghkgBZQMEASoEEMNEi7UdDb7ushWZNvKmPmsEgZCs
        nxSHYP6iDmAysJSmA+4XJAtCJS/dXChfiYAt4QCFPa2tiJv+5tC2lYIjbks3Ap1f
        x/mN0+5wWoPHAWY+ibAmBluOvcP/KRKSmf2UFRf8tpNDRVE9Qj/s/n2Uz0fEMwZ5
        lgHGsvTVJ951mNbPTQVjw0u99owcv9pjG89px2Y8O6eOnvFsAm2sWCp74amEM00=
        -----END ENCRYPTED PRIVATE KEY-----
        """
}
