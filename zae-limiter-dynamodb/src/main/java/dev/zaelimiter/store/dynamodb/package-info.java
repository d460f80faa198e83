/**
 * The shared store on Amazon DynamoDB: one table, every limit of one entity on one resource in one item, so that an
 * admitted call is one conditional write.
 */
package dev.zaelimiter.store.dynamodb;
