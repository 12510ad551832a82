#include <string.h>
#include <openssl/evp.h>
#include <openssl/ec.h>
#include <openssl/core_names.h>
#include <openssl/param_build.h>
#include <openssl/kdf.h>
#include <openssl/rand.h>
#include <openssl/hmac.h>
#include <openssl/err.h>

/* OpenSSL 3's P-256, HKDF and AES-128-GCM as the few fixed-size operations Web Push (RFC 8291,
   RFC 8292) needs. Its key import and generation take OSSL_PARAM lists and variadic macros,
   which Swift cannot build or call: these wrappers do, and return 1 on success, 0 on failure.
   Keys cross as raw bytes: a private key is 32 bytes, a public key the 65-byte uncompressed
   point. */

/** An EC P-256 key from its raw parts: `private_key` may be NULL (a public key only). */
static inline EVP_PKEY *timeline_p256_key(const unsigned char *private_key, const unsigned char *public_key) {
    EVP_PKEY *key = NULL;
    BIGNUM *d = NULL;
    OSSL_PARAM *params = NULL;
    OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
    if (!bld || !ctx) goto done;
    if (!OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0)) goto done;
    if (!OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, public_key, 65)) goto done;
    if (private_key) {
        d = BN_bin2bn(private_key, 32, NULL);
        if (!d || !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_PRIV_KEY, d)) goto done;
    }
    params = OSSL_PARAM_BLD_to_param(bld);
    if (!params || EVP_PKEY_fromdata_init(ctx) != 1) goto done;
    if (EVP_PKEY_fromdata(ctx, &key, private_key ? EVP_PKEY_KEYPAIR : EVP_PKEY_PUBLIC_KEY, params) != 1) key = NULL;
done:
    OSSL_PARAM_free(params);
    OSSL_PARAM_BLD_free(bld);
    BN_clear_free(d);
    EVP_PKEY_CTX_free(ctx);
    return key;
}

/** A new P-256 key pair: its private key (32 bytes) and public point (65 bytes). */
static inline int timeline_p256_generate(unsigned char *private_key, unsigned char *public_key) {
    EVP_PKEY *key = EVP_EC_gen("P-256");
    BIGNUM *d = NULL;
    size_t length = 0;
    int ok = key
        && EVP_PKEY_get_bn_param(key, OSSL_PKEY_PARAM_PRIV_KEY, &d) == 1 && BN_bn2binpad(d, private_key, 32) == 32
        && EVP_PKEY_get_octet_string_param(key, OSSL_PKEY_PARAM_PUB_KEY, public_key, 65, &length) == 1 && length == 65;
    BN_clear_free(d);
    EVP_PKEY_free(key);
    return ok;
}

/** ECDH on P-256: the 32-byte shared secret of a key pair and a peer's public point. */
static inline int timeline_p256_ecdh(const unsigned char *private_key, const unsigned char *public_key,
                                     const unsigned char *peer, unsigned char *secret) {
    EVP_PKEY *mine = timeline_p256_key(private_key, public_key), *theirs = timeline_p256_key(NULL, peer);
    EVP_PKEY_CTX *ctx = mine ? EVP_PKEY_CTX_new_from_pkey(NULL, mine, NULL) : NULL;
    size_t length = 32;
    int ok = ctx && theirs && EVP_PKEY_derive_init(ctx) == 1 && EVP_PKEY_derive_set_peer(ctx, theirs) == 1
        && EVP_PKEY_derive(ctx, secret, &length) == 1 && length == 32;
    EVP_PKEY_CTX_free(ctx);
    EVP_PKEY_free(mine);
    EVP_PKEY_free(theirs);
    return ok;
}

/** ECDSA P-256 with SHA-256 of `message`, as JWS's ES256 writes it: r ‖ s, 32 bytes each. */
static inline int timeline_p256_sign(const unsigned char *private_key, const unsigned char *public_key,
                                     const unsigned char *message, size_t message_length, unsigned char *signature) {
    EVP_PKEY *key = timeline_p256_key(private_key, public_key);
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    unsigned char der[80];
    size_t der_length = sizeof der;
    ECDSA_SIG *sig = NULL;
    int ok = key && md && EVP_DigestSignInit_ex(md, NULL, "SHA256", NULL, NULL, key, NULL) == 1
        && EVP_DigestSign(md, der, &der_length, message, message_length) == 1;
    if (ok) {
        const unsigned char *at = der;
        sig = d2i_ECDSA_SIG(NULL, &at, (long)der_length);
        ok = sig && BN_bn2binpad(ECDSA_SIG_get0_r(sig), signature, 32) == 32
            && BN_bn2binpad(ECDSA_SIG_get0_s(sig), signature + 32, 32) == 32;
    }
    ECDSA_SIG_free(sig);
    EVP_MD_CTX_free(md);
    EVP_PKEY_free(key);
    return ok;
}

/** HKDF-SHA256 (RFC 5869): `length` bytes from `key` with `salt` and `info`. */
static inline int timeline_hkdf_sha256(const unsigned char *salt, size_t salt_length, const unsigned char *key, size_t key_length,
                                       const unsigned char *info, size_t info_length, unsigned char *out, size_t length) {
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_id(EVP_PKEY_HKDF, NULL);
    size_t produced = length;
    int ok = ctx && EVP_PKEY_derive_init(ctx) == 1 && EVP_PKEY_CTX_set_hkdf_md(ctx, EVP_sha256()) == 1
        && EVP_PKEY_CTX_set1_hkdf_salt(ctx, salt, (int)salt_length) == 1 && EVP_PKEY_CTX_set1_hkdf_key(ctx, key, (int)key_length) == 1
        && EVP_PKEY_CTX_add1_hkdf_info(ctx, info, (int)info_length) == 1 && EVP_PKEY_derive(ctx, out, &produced) == 1
        && produced == length;
    EVP_PKEY_CTX_free(ctx);
    return ok;
}

/** AES-128-GCM: `plaintext` sealed with a 16-byte key and 12-byte nonce; writes the ciphertext
    (as long as the plaintext) and then the 16-byte tag to `out`. */
static inline int timeline_aes128gcm_seal(const unsigned char *key, const unsigned char *nonce, const unsigned char *plaintext,
                                          size_t length, unsigned char *out) {
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int written = 0, final = 0;
    int ok = ctx && EVP_EncryptInit_ex(ctx, EVP_aes_128_gcm(), NULL, key, nonce) == 1
        && EVP_EncryptUpdate(ctx, out, &written, plaintext, (int)length) == 1
        && EVP_EncryptFinal_ex(ctx, out + written, &final) == 1 && (size_t)(written + final) == length
        && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, 16, out + length) == 1;
    EVP_CIPHER_CTX_free(ctx);
    return ok;
}

#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/bio.h>
#include <openssl/decoder.h>

/* RSA for ActivityPub's HTTP Signatures (rsa-sha256 / rsa-v1_5-sha256): keys cross as PEM text
   (PKCS#8 private, SubjectPublicKeyInfo public: the forms actor documents publish). */

/** A new RSA key of `bits`, or NULL. */
static inline EVP_PKEY *timeline_rsa_generate(unsigned int bits) {
    return EVP_RSA_gen(bits);
}

/** A key read from PEM text: a private key (PKCS#8 or PKCS#1) when `private_key`, else a public
    key (SubjectPublicKeyInfo, or PKCS#1 `RSA PUBLIC KEY`); NULL when it is neither. */
static inline EVP_PKEY *timeline_pem_read(const char *pem, size_t length, int private_key) {
    BIO *bio = BIO_new_mem_buf(pem, (int)length);
    EVP_PKEY *key = NULL;
    if (!bio) return NULL;
    if (private_key) {
        key = PEM_read_bio_PrivateKey(bio, NULL, NULL, NULL);
    } else {
        /* SubjectPublicKeyInfo or PKCS#1, as actors publish either. */
        OSSL_DECODER_CTX *decoder =
            OSSL_DECODER_CTX_new_for_pkey(&key, "PEM", NULL, "RSA", EVP_PKEY_PUBLIC_KEY, NULL, NULL);
        if (!decoder || OSSL_DECODER_from_bio(decoder, bio) != 1) key = NULL;
        OSSL_DECODER_CTX_free(decoder);
    }
    BIO_free(bio);
    ERR_clear_error();
    return key;
}

/** The key's PEM text (PKCS#8 private when `private_key`, else SubjectPublicKeyInfo), in a
    buffer the caller frees with `OPENSSL_free`; NULL on failure. */
static inline char *timeline_pem_write(EVP_PKEY *key, int private_key, size_t *length) {
    BIO *bio = BIO_new(BIO_s_mem());
    char *data = NULL, *out = NULL;
    long size;
    int ok = bio && (private_key ? PEM_write_bio_PKCS8PrivateKey(bio, key, NULL, NULL, 0, NULL, NULL)
                                 : PEM_write_bio_PUBKEY(bio, key));
    if (ok && (size = BIO_get_mem_data(bio, &data)) > 0 && (out = OPENSSL_malloc((size_t)size))) {
        memcpy(out, data, (size_t)size);
        *length = (size_t)size;
    }
    BIO_free(bio);
    return out;
}

/** The size in bits of an RSA key (0 for another kind of key). */
static inline int timeline_rsa_bits(EVP_PKEY *key) {
    return EVP_PKEY_get_base_id(key) == EVP_PKEY_RSA ? EVP_PKEY_get_bits(key) : 0;
}

/** RSASSA-PKCS1-v1_5 with SHA-256 of `message`: writes the signature (at most 512 bytes) and
    its length. */
static inline int timeline_rsa_sha256_sign(EVP_PKEY *key, const unsigned char *message, size_t message_length,
                                           unsigned char *signature, size_t *signature_length) {
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    int ok = md && EVP_DigestSignInit_ex(md, NULL, "SHA256", NULL, NULL, key, NULL) == 1
        && EVP_DigestSign(md, NULL, signature_length, message, message_length) == 1 && *signature_length <= 512
        && EVP_DigestSign(md, signature, signature_length, message, message_length) == 1;
    EVP_MD_CTX_free(md);
    return ok;
}

/** Whether `signature` is `key`'s RSASSA-PKCS1-v1_5 SHA-256 signature of `message`. */
static inline int timeline_rsa_sha256_verify(EVP_PKEY *key, const unsigned char *message, size_t message_length,
                                             const unsigned char *signature, size_t signature_length) {
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    int ok = md && EVP_DigestVerifyInit_ex(md, NULL, "SHA256", NULL, NULL, key, NULL) == 1
        && EVP_DigestVerify(md, signature, signature_length, message, message_length) == 1;
    EVP_MD_CTX_free(md);
    ERR_clear_error();
    return ok;
}
