using System.Collections;
using Microsoft.AspNetCore.Connections.Features;
using Microsoft.AspNetCore.Http.Features;

namespace PlatformBenchmarks.Transport;

/// <summary>
/// The connection is its own feature collection, as Kestrel's transports are: the six features it implements are
/// answered without a lookup, and what others set (Kestrel sets four of its own on every connection, TLS the
/// handshake's) goes in a short list searched in order. A <see cref="FeatureCollection"/> per connection was a
/// dictionary grown twice, about a seventh of what a connection allocated (docs/decisions/0017-connection-cost.md).
/// </summary>
internal sealed partial class TransportConnection : IFeatureCollection
{
    private const int FirstExtraCapacity = 4;

    private static readonly Type[] s_ownFeatures =
    [
        typeof(IConnectionIdFeature),
        typeof(IConnectionTransportFeature),
        typeof(IConnectionItemsFeature),
        typeof(IConnectionLifetimeFeature),
        typeof(IConnectionEndPointFeature),
        typeof(ITransportLoopFeature),
    ];

    // Features set on the connection, in the order first set. A null value hides one of the connection's own features
    // (Set with null); for any other type it is the same as no entry.
    private KeyValuePair<Type, object?>[]? _extraFeatures;
    private int _extraFeatureCount;
    private int _featureRevision;

    bool IFeatureCollection.IsReadOnly => false;

    int IFeatureCollection.Revision => _featureRevision;

    object? IFeatureCollection.this[Type key]
    {
        get
        {
            ArgumentNullException.ThrowIfNull(key);
            int index = IndexOfExtra(key);
            if (index >= 0)
            {
                return _extraFeatures![index].Value;
            }

            return IsOwnFeature(key) ? this : null;
        }

        set
        {
            ArgumentNullException.ThrowIfNull(key);
            SetFeature(key, value);
        }
    }

    TFeature? IFeatureCollection.Get<TFeature>() where TFeature : default => (TFeature?)((IFeatureCollection)this)[typeof(TFeature)];

    void IFeatureCollection.Set<TFeature>(TFeature? instance) where TFeature : default => SetFeature(typeof(TFeature), instance);

    IEnumerator<KeyValuePair<Type, object>> IEnumerable<KeyValuePair<Type, object>>.GetEnumerator()
    {
        foreach (Type own in s_ownFeatures)
        {
            if (IndexOfExtra(own) < 0)
            {
                yield return new KeyValuePair<Type, object>(own, this);
            }
        }

        for (int i = 0; i < _extraFeatureCount; i++)
        {
            KeyValuePair<Type, object?> entry = _extraFeatures![i];
            if (entry.Value is not null)
            {
                yield return new KeyValuePair<Type, object>(entry.Key, entry.Value);
            }
        }
    }

    IEnumerator IEnumerable.GetEnumerator() => ((IEnumerable<KeyValuePair<Type, object>>)this).GetEnumerator();

    // Looked up once or twice per connection, never per request: the one list is the whole truth.
    private static bool IsOwnFeature(Type key) => Array.IndexOf(s_ownFeatures, key) >= 0;

    private int IndexOfExtra(Type key)
    {
        KeyValuePair<Type, object?>[]? extras = _extraFeatures;
        for (int i = 0; i < _extraFeatureCount; i++)
        {
            if (ReferenceEquals(extras![i].Key, key))
            {
                return i;
            }
        }

        return -1;
    }

    private void SetFeature(Type key, object? value)
    {
        _featureRevision++;
        int index = IndexOfExtra(key);
        if (index >= 0)
        {
            _extraFeatures![index] = new KeyValuePair<Type, object?>(key, value);
            return;
        }

        if (value is null && !IsOwnFeature(key))
        {
            return;
        }

        if (_extraFeatures is null || _extraFeatureCount == _extraFeatures.Length)
        {
            Array.Resize(ref _extraFeatures, _extraFeatures is null ? FirstExtraCapacity : _extraFeatures.Length * 2);
        }

        _extraFeatures[_extraFeatureCount++] = new KeyValuePair<Type, object?>(key, value);
    }
}
