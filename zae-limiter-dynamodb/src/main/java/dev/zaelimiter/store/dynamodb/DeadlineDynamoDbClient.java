package dev.zaelimiter.store.dynamodb;

import software.amazon.awssdk.awscore.AwsRequest;
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.waiters.WaiterOverrideConfiguration;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbServiceClientConfiguration;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.CreateTableResponse;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.DeleteTableRequest;
import software.amazon.awssdk.services.dynamodb.model.DeleteTableResponse;
import software.amazon.awssdk.services.dynamodb.model.DescribeTableRequest;
import software.amazon.awssdk.services.dynamodb.model.DescribeTableResponse;
import software.amazon.awssdk.services.dynamodb.model.DescribeTimeToLiveRequest;
import software.amazon.awssdk.services.dynamodb.model.DescribeTimeToLiveResponse;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemResponse;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.ScanRequest;
import software.amazon.awssdk.services.dynamodb.model.ScanResponse;
import software.amazon.awssdk.services.dynamodb.model.TransactGetItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactGetItemsResponse;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsResponse;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemResponse;
import software.amazon.awssdk.services.dynamodb.model.UpdateTimeToLiveRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateTimeToLiveResponse;
import software.amazon.awssdk.services.dynamodb.waiters.DynamoDbWaiter;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The application's {@link DynamoDbClient} with a deadline on every request: each request the store forwards gets
 * {@code apiCallTimeout} and {@code apiCallAttemptTimeout} through the SDK's per-request override, so no request
 * (retries included) outlives it, whatever the client's own configuration. A deadline the request already carries
 * is kept when it is shorter. Timeouts surface as the SDK's {@link ApiCallTimeoutException} (which the store turns
 * into {@link dev.zaelimiter.StoreUnavailableException}) and are counted in {@link #timeouts()}.
 *
 * <p>Until one request has been answered (a response or a service error), requests get a longer deadline,
 * {@link #WARM_UP_TIMEOUT} or the deadline if longer: the first request of a cold SDK client loads and initializes
 * much of the SDK and resolves credentials and the endpoint, which takes from a few hundred milliseconds to a few
 * seconds, and would otherwise fail the application's first call (or its startup, which writes declarations).
 *
 * <p>Only the operations the store uses are forwarded, in both their request and builder forms (the builder form
 * is forwarded as such, so a mocked client stubbed on it still answers); any other operation raises
 * {@link UnsupportedOperationException} instead of running without a deadline. {@link #close()} does not close the
 * application's client.
 */
final class DeadlineDynamoDbClient implements DynamoDbClient {

    /** The deadline of requests made before any was answered, unless the deadline is longer. */
    static final Duration WARM_UP_TIMEOUT = Duration.ofSeconds(5);

    private final DynamoDbClient delegate;
    private final Duration timeout;
    private final Duration warmUpTimeout;
    private final LongAdder timeouts = new LongAdder();
    private volatile boolean warm;
    private volatile boolean shut;

    DeadlineDynamoDbClient(DynamoDbClient delegate, Duration timeout) {
        this(delegate, timeout, WARM_UP_TIMEOUT);
    }

    DeadlineDynamoDbClient(DynamoDbClient delegate, Duration timeout, Duration warmUpTimeout) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.timeout = Objects.requireNonNull(timeout, "timeout");
        this.warmUpTimeout = warmUpTimeout.compareTo(timeout) > 0 ? warmUpTimeout : timeout;
    }

    /** The application's client. */
    DynamoDbClient delegate() {
        return delegate;
    }

    Duration timeout() {
        return timeout;
    }

    /** How many requests ran out of time since this client was made. */
    long timeouts() {
        return timeouts.sum();
    }

    /** Whether a request has been answered, so that requests get the deadline rather than the warm-up one. */
    boolean warm() {
        return warm;
    }

    /** {@code given} with this client's deadline, unless it already has a shorter one. */
    AwsRequestOverrideConfiguration bounded(AwsRequestOverrideConfiguration given) {
        Duration deadline = warm ? timeout : warmUpTimeout;
        AwsRequestOverrideConfiguration.Builder b = given == null
                ? AwsRequestOverrideConfiguration.builder() : given.toBuilder();
        b.apiCallTimeout(shorter(b.apiCallTimeout(), deadline));
        b.apiCallAttemptTimeout(shorter(b.apiCallAttemptTimeout(), deadline));
        return b.build();
    }

    private static Duration shorter(Duration given, Duration deadline) {
        return given != null && given.compareTo(deadline) < 0 ? given : deadline;
    }

    /** A copy of {@code request} with this client's deadline. */
    @SuppressWarnings("unchecked")
    private <R extends AwsRequest> R bounded(R request) {
        AwsRequest.Builder builder = request.toBuilder();
        builder.overrideConfiguration(bounded(request.overrideConfiguration().orElse(null)));
        return (R) builder.build();
    }

    /** {@code mutation}, then this client's deadline. */
    private <B extends AwsRequest.Builder> Consumer<B> bounded(Consumer<B> mutation) {
        Objects.requireNonNull(mutation, "mutation");
        return builder -> {
            mutation.accept(builder);
            builder.overrideConfiguration(bounded(builder.overrideConfiguration()));
        };
    }

    /** Refuses every later request: the store was closed. */
    void shut() {
        shut = true;
    }

    /** Raises when the store was closed, as a request made now would. */
    void checkOpen() {
        if (shut) {
            throw SdkClientException.create("the store is closed");
        }
    }

    private <T> T counted(Supplier<T> call) {
        checkOpen();
        try {
            T response = call.get();
            warm = true;
            return response;
        } catch (AwsServiceException answered) {                // the service answered: a refused condition, say
            warm = true;
            throw answered;
        } catch (ApiCallTimeoutException | ApiCallAttemptTimeoutException e) {
            timeouts.increment();
            throw e;
        }
    }

    // ---- items

    @Override
    public GetItemResponse getItem(GetItemRequest request) {
        return counted(() -> delegate.getItem(bounded(request)));
    }

    @Override
    public GetItemResponse getItem(Consumer<GetItemRequest.Builder> request) {
        return counted(() -> delegate.getItem(bounded(request)));
    }

    @Override
    public PutItemResponse putItem(PutItemRequest request) {
        return counted(() -> delegate.putItem(bounded(request)));
    }

    @Override
    public PutItemResponse putItem(Consumer<PutItemRequest.Builder> request) {
        return counted(() -> delegate.putItem(bounded(request)));
    }

    @Override
    public UpdateItemResponse updateItem(UpdateItemRequest request) {
        return counted(() -> delegate.updateItem(bounded(request)));
    }

    @Override
    public UpdateItemResponse updateItem(Consumer<UpdateItemRequest.Builder> request) {
        return counted(() -> delegate.updateItem(bounded(request)));
    }

    @Override
    public DeleteItemResponse deleteItem(DeleteItemRequest request) {
        return counted(() -> delegate.deleteItem(bounded(request)));
    }

    @Override
    public DeleteItemResponse deleteItem(Consumer<DeleteItemRequest.Builder> request) {
        return counted(() -> delegate.deleteItem(bounded(request)));
    }

    @Override
    public BatchGetItemResponse batchGetItem(BatchGetItemRequest request) {
        return counted(() -> delegate.batchGetItem(bounded(request)));
    }

    @Override
    public BatchGetItemResponse batchGetItem(Consumer<BatchGetItemRequest.Builder> request) {
        return counted(() -> delegate.batchGetItem(bounded(request)));
    }

    @Override
    public BatchWriteItemResponse batchWriteItem(BatchWriteItemRequest request) {
        return counted(() -> delegate.batchWriteItem(bounded(request)));
    }

    @Override
    public BatchWriteItemResponse batchWriteItem(Consumer<BatchWriteItemRequest.Builder> request) {
        return counted(() -> delegate.batchWriteItem(bounded(request)));
    }

    @Override
    public QueryResponse query(QueryRequest request) {
        return counted(() -> delegate.query(bounded(request)));
    }

    @Override
    public QueryResponse query(Consumer<QueryRequest.Builder> request) {
        return counted(() -> delegate.query(bounded(request)));
    }

    @Override
    public ScanResponse scan(ScanRequest request) {
        return counted(() -> delegate.scan(bounded(request)));
    }

    @Override
    public ScanResponse scan(Consumer<ScanRequest.Builder> request) {
        return counted(() -> delegate.scan(bounded(request)));
    }

    @Override
    public TransactWriteItemsResponse transactWriteItems(TransactWriteItemsRequest request) {
        return counted(() -> delegate.transactWriteItems(bounded(request)));
    }

    @Override
    public TransactWriteItemsResponse transactWriteItems(Consumer<TransactWriteItemsRequest.Builder> request) {
        return counted(() -> delegate.transactWriteItems(bounded(request)));
    }

    @Override
    public TransactGetItemsResponse transactGetItems(TransactGetItemsRequest request) {
        return counted(() -> delegate.transactGetItems(bounded(request)));
    }

    @Override
    public TransactGetItemsResponse transactGetItems(Consumer<TransactGetItemsRequest.Builder> request) {
        return counted(() -> delegate.transactGetItems(bounded(request)));
    }

    // ---- table

    @Override
    public DescribeTableResponse describeTable(DescribeTableRequest request) {
        return counted(() -> delegate.describeTable(bounded(request)));
    }

    @Override
    public DescribeTableResponse describeTable(Consumer<DescribeTableRequest.Builder> request) {
        return counted(() -> delegate.describeTable(bounded(request)));
    }

    @Override
    public CreateTableResponse createTable(CreateTableRequest request) {
        return counted(() -> delegate.createTable(bounded(request)));
    }

    @Override
    public CreateTableResponse createTable(Consumer<CreateTableRequest.Builder> request) {
        return counted(() -> delegate.createTable(bounded(request)));
    }

    @Override
    public DeleteTableResponse deleteTable(DeleteTableRequest request) {
        return counted(() -> delegate.deleteTable(bounded(request)));
    }

    @Override
    public DeleteTableResponse deleteTable(Consumer<DeleteTableRequest.Builder> request) {
        return counted(() -> delegate.deleteTable(bounded(request)));
    }

    @Override
    public UpdateTimeToLiveResponse updateTimeToLive(UpdateTimeToLiveRequest request) {
        return counted(() -> delegate.updateTimeToLive(bounded(request)));
    }

    @Override
    public UpdateTimeToLiveResponse updateTimeToLive(Consumer<UpdateTimeToLiveRequest.Builder> request) {
        return counted(() -> delegate.updateTimeToLive(bounded(request)));
    }

    @Override
    public DescribeTimeToLiveResponse describeTimeToLive(DescribeTimeToLiveRequest request) {
        return counted(() -> delegate.describeTimeToLive(bounded(request)));
    }

    @Override
    public DescribeTimeToLiveResponse describeTimeToLive(Consumer<DescribeTimeToLiveRequest.Builder> request) {
        return counted(() -> delegate.describeTimeToLive(bounded(request)));
    }

    /**
     * A waiter that polls through this client, so each poll has the deadline. How long it waits in all is the
     * caller's to bound, with a {@link WaiterOverrideConfiguration}.
     */
    @Override
    public DynamoDbWaiter waiter() {
        return DynamoDbWaiter.builder().client(this).build();
    }

    // ---- client

    @Override
    public String serviceName() {
        return delegate.serviceName();
    }

    @Override
    public DynamoDbServiceClientConfiguration serviceClientConfiguration() {
        return delegate.serviceClientConfiguration();
    }

    /** Does nothing: the application owns its client. */
    @Override
    public void close() {
    }

    @Override
    public String toString() {
        return "DeadlineDynamoDbClient[" + timeout.toMillis() + " ms, " + delegate + "]";
    }
}
