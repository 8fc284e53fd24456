using System.Net.Security;
using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;

namespace PlatformBenchmarks.Http.Tls;

/// <summary>The exception for certificate files the server cannot use; its message is one line naming the file.</summary>
public sealed class TlsCertificateException : Exception
{
    public TlsCertificateException()
    {
    }

    public TlsCertificateException(string message)
        : base(message)
    {
    }

    public TlsCertificateException(string message, Exception innerException)
        : base(message, innerException)
    {
    }
}

/// <summary>Reads the server's certificate, its chain and its private key from PEM files, once, at start-up.</summary>
public static class TlsCertificateFiles
{
    /// <summary>
    /// The certificate with its key and chain, ready for every handshake. Throws <see cref="TlsCertificateException"/>
    /// naming the file that cannot be read, or both when they are no certificate and matching key.
    /// </summary>
    public static SslStreamCertificateContext Load(string certificatePath, string keyPath)
    {
        ArgumentNullException.ThrowIfNull(certificatePath);
        ArgumentNullException.ThrowIfNull(keyPath);
        string certificatePem = Read(certificatePath, "certificate");
        string keyPem = Read(keyPath, "private key");
        X509Certificate2 leaf;
        var chain = new X509Certificate2Collection();
        try
        {
            leaf = X509Certificate2.CreateFromPem(certificatePem, keyPem);
            chain.ImportFromPem(certificatePem);
        }
        catch (CryptographicException exception)
        {
            throw new TlsCertificateException(
                $"the TLS certificate '{certificatePath}' and key '{keyPath}' are not a PEM certificate and its private key: {exception.Message}", exception);
        }

        if (!leaf.HasPrivateKey)
        {
            throw new TlsCertificateException($"the TLS key '{keyPath}' holds no private key for the certificate '{certificatePath}'.");
        }

        // The first certificate of the file is the leaf; the rest are its chain, sent with it in every handshake.
        chain.RemoveAt(0);
        return SslStreamCertificateContext.Create(leaf, chain, offline: true);
    }

    private static string Read(string path, string what)
    {
        try
        {
            return File.ReadAllText(path);
        }
        catch (Exception exception) when (exception is IOException or UnauthorizedAccessException or ArgumentException or NotSupportedException)
        {
            string reason = exception switch
            {
                FileNotFoundException or DirectoryNotFoundException => "no such file",
                UnauthorizedAccessException => "permission denied",
                _ => exception.Message,
            };
            throw new TlsCertificateException($"cannot read the TLS {what} '{path}': {reason}", exception);
        }
    }
}
