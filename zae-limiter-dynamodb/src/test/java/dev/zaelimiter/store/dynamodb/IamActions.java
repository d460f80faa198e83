package dev.zaelimiter.store.dynamodb;

import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateTimeToLiveRequest;

import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Records the IAM actions that the requests of a client need, as an execution interceptor: {@code dynamodb:GetItem}
 * for a {@code GetItem} request, the actions of its items for a {@code TransactWriteItems} (IAM authorizes a
 * transaction by the item actions it contains), and a {@code Query} on an index against the index. It also keeps the
 * last table definition and TTL setting sent, to compare with the CloudFormation template.
 */
final class IamActions implements ExecutionInterceptor {

    /** The recorder of every client {@link DynamoDbTestStores} hands out. */
    static final IamActions RECORDER = new IamActions();

    private final Set<String> onTable = new ConcurrentSkipListSet<>();
    private final Set<String> onIndex = new ConcurrentSkipListSet<>();
    private final AtomicReference<CreateTableRequest> createTable = new AtomicReference<>();
    private final AtomicReference<UpdateTimeToLiveRequest> timeToLive = new AtomicReference<>();

    @Override
    public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
        SdkRequest request = context.request();
        String operation = attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME);
        if (request instanceof TransactWriteItemsRequest transaction) {
            transaction.transactItems().forEach(item -> onTable.add(itemAction(item)));
        } else if (request instanceof QueryRequest query && query.indexName() != null) {
            onIndex.add("dynamodb:" + operation);
        } else {
            onTable.add("dynamodb:" + operation);
        }
        if (request instanceof CreateTableRequest create) {
            createTable.set(create);
        } else if (request instanceof UpdateTimeToLiveRequest ttl) {
            timeToLive.set(ttl);
        }
    }

    private static String itemAction(TransactWriteItem item) {
        if (item.update() != null) {
            return "dynamodb:UpdateItem";
        }
        if (item.put() != null) {
            return "dynamodb:PutItem";
        }
        if (item.delete() != null) {
            return "dynamodb:DeleteItem";
        }
        return "dynamodb:ConditionCheckItem";
    }

    void clear() {
        onTable.clear();
        onIndex.clear();
        createTable.set(null);
        timeToLive.set(null);
    }

    Set<String> onTable() {
        return new TreeSet<>(onTable);
    }

    Set<String> onIndex() {
        return new TreeSet<>(onIndex);
    }

    CreateTableRequest lastCreateTable() {
        return createTable.get();
    }

    UpdateTimeToLiveRequest lastTimeToLive() {
        return timeToLive.get();
    }
}
