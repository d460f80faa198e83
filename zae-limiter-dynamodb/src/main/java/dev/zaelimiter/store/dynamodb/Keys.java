package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.ValidationException;
import dev.zaelimiter.store.BucketKey;
import dev.zaelimiter.store.ConfigScope;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

import java.util.Map;

/**
 * The key layout. Every key starts with the namespace, so applications can share a table:
 * <pre>
 * PK                       SK               item
 * {ns}#E#{entity}          #META            the entity record (GSI1PK {ns}#P#{parent} when it has a parent)
 * {ns}#E#{entity}          #CFG#{resource}  the entity's configuration level ({resource} may be _default_)
 * {ns}#E#{entity}          #B#{resource}    the bucket: every limit of the entity on the resource
 * {ns}#R#{resource}        #CFG             the resource level
 * {ns}#SYS                 #CFG             the system level
 * </pre>
 */
final class Keys {

    static final String PK = "PK";
    static final String SK = "SK";
    static final String GSI1 = "GSI1";
    static final String GSI1PK = "GSI1PK";
    static final String GSI1SK = "GSI1SK";
    static final String META = "#META";
    static final String CONFIG = "#CFG";
    static final String BUCKET = "#B#";

    private final String namespace;

    Keys(String namespace) {
        if (namespace == null || namespace.isEmpty() || namespace.length() > 64
                || !namespace.matches("[A-Za-z0-9][A-Za-z0-9_.-]*")) {
            throw new ValidationException("namespace", namespace, "a namespace is 1 to 64 letters, digits and"
                    + " _ . -, starting with a letter or digit");
        }
        this.namespace = namespace;
    }

    String namespace() {
        return namespace;
    }

    String entityPk(String entityId) {
        return namespace + "#E#" + entityId;
    }

    String parentIndexPk(String parentId) {
        return namespace + "#P#" + parentId;
    }

    Map<String, AttributeValue> entity(String entityId) {
        return key(entityPk(entityId), META);
    }

    Map<String, AttributeValue> bucket(BucketKey key) {
        return key(entityPk(key.entityId()), BUCKET + key.resource());
    }

    Map<String, AttributeValue> config(ConfigScope scope) {
        if (scope.isSystem()) {
            return key(namespace + "#SYS", CONFIG);
        }
        if (scope.isResource()) {
            return key(namespace + "#R#" + scope.resource(), CONFIG);
        }
        return key(entityPk(scope.entityId()), CONFIG + "#" + scope.resource());
    }

    static boolean isBucketSk(String sk) {
        return sk.startsWith(BUCKET);
    }

    /** The bucket of {@code entityId} whose sort key is {@code sk} ({@link #isBucketSk}). */
    static BucketKey bucketKey(String entityId, String sk) {
        return new BucketKey(entityId, sk.substring(BUCKET.length()));
    }

    static Map<String, AttributeValue> key(String pk, String sk) {
        return Map.of(PK, AttributeValue.fromS(pk), SK, AttributeValue.fromS(sk));
    }
}
